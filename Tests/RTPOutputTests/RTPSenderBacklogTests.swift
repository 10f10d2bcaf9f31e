import Codec
import NIOCore
import NIOEmbedded
@testable import RTPOutput
import Synchronization
import Testing

/// The RTP send loop on a socket that has backed up: frames are dropped (counted apart from the
/// hand-off queue's drops), a key frame is asked for, and delta frames wait for it. A loopback
/// socket never backs up (the kernel hands datagrams straight to the receiver), and a stall in the
/// kernel (``WHEPStallTests``) needs a network namespace the event loop's threads are not in, so the
/// channel here is NIO's EmbeddedChannel, told it is not writable, as NIO says past the high-water mark.
@Suite struct RTPSenderBacklogTests {
    static func delta(ptsNanos: Int64) -> EncodedVideoFrame {
        EncodedVideoFrame(codec: .h264, data: [0, 0, 0, 1, 0x41, 0x9a, 0x02], nalUnitRanges: [4..<7], ptsNanos: ptsNanos, dtsNanos: ptsNanos,
                          isKeyFrame: false, parameterSets: ParameterSets(codec: .h264))
    }

    @Test func aBackedUpSocketDropsTheFrameAndHoldsDeltaFramesUntilTheKeyFrameItAskedFor() throws {
        let requests = Atomic<Int>(0)
        let published = Mutex(RTPSendSession.Statistics())
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 5004)
        let handler = try RTPSenderHandler(
            session: try RTPSenderSessionTests.session(), audio: nil,
            configuration: RTPOutputConfiguration(destination: try RTPDestination(host: "127.0.0.1", port: 5004)),
            video: .init(rtp: address, rtcp: address), audioRoute: .init(rtp: address, rtcp: address),
            requestKeyFrame: { requests.wrappingAdd(1, ordering: .relaxed) }, describe: { _ in },
            publish: { latest in published.withLock { $0 = latest } })
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: address).wait()
        func datagramsWritten() throws -> Int {
            var count = 0
            while try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) != nil { count += 1 }
            return count
        }

        var reference = try RTPSenderSessionTests.session()
        let keyFramePackets = try reference.packets(for: RTPSenderSessionTests.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 0).count
        handler.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0))
        handler.send(Self.delta(ptsNanos: 33_000_000))
        #expect(try datagramsWritten() == keyFramePackets + 1, "the key frame's packets, and the delta frame's one")

        channel.isWritable = false
        handler.send(Self.delta(ptsNanos: 66_000_000))
        #expect(try datagramsWritten() == 0, "nothing written while the socket is backed up")
        #expect(published.withLock { $0.framesDroppedAtSocket } == 1 && requests.load(ordering: .relaxed) == 1)

        channel.isWritable = true
        handler.send(Self.delta(ptsNanos: 100_000_000))
        #expect(try datagramsWritten() == 0, "the next delta frame refers to the dropped one: held")
        #expect(published.withLock { ($0.framesHeldAtSocket, $0.framesDroppedAtSocket) } == (1, 1))
        #expect(published.withLock { $0.video?.framesDropped } == 0, "the hand-off queue dropped nothing")

        handler.send(RTPSenderSessionTests.keyFrame(ptsNanos: 133_000_000))
        #expect(try datagramsWritten() == keyFramePackets, "the key frame ends the gap")
        #expect(requests.load(ordering: .relaxed) == 1, "one request for the gap")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
