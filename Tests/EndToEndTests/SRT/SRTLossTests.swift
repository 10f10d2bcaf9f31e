import Foundation
import Testing
import TestSupport

/// SRT's reason to exist: a lossy, long path. This machine's kernel has no netem, so a userspace
/// relay between livepush and ffmpeg loses 5 % of the data packets (evenly spread) and delays every
/// packet by 50 ms each way; ACKs, NAKs and handshakes pass.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SRTLossTests {
    @Test func everyFrameArrivesThroughFivePercentLossAnd50MillisecondsDelay() throws {
        let receiverPort = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let relay = try LossyUDPRelay(port: 0, targetPort: receiverPort, lossPercent: 5, lossy: .toTarget, deadlineSeconds: 60,
                                      lossyFirstBytes: LossyUDPRelay.srtDataFirstBytes, delaySeconds: 0.05)
        defer { relay.stop() }
        // 100 ms round trip: a 600 ms window leaves time for several retransmissions of a packet.
        let log = try SRTPeers.streamThroughRelay(relay.socket.port, to: receiverPort, writingTo: dir.file("out.ts"),
                                                  latencyMilliseconds: 600, seconds: 8)
        #expect(relay.toTarget.dropped > 20, "the relay lost \(relay.toTarget.dropped) of \(relay.toTarget.forwarded + relay.toTarget.dropped) packets")
        let retransmitted = log.firstMatch(of: /(\d+) retransmitted/).flatMap { Int($0.1) } ?? 0
        let tooLate = log.firstMatch(of: /(\d+) dropped too late/).flatMap { Int($0.1) } ?? -1
        #expect(retransmitted >= relay.toTarget.dropped, "libsrt retransmitted \(retransmitted) for \(relay.toTarget.dropped) lost; \(log.suffix(600))")
        #expect(tooLate == 0, "\(log.suffix(600))")
        try LivepushSRTTests.expectWholeStream(dir.file("out.ts"), seconds: 8, log: log)
    }
}

/// A connect that completes late: the relay loses every handshake for 1.5 s from the first, so
/// libsrt's retries get through only then, while the frames since the first keyframe wait. Sent
/// in one burst, more than the 200 ms latency window's worth, part of them would be dropped as
/// too late and what follows would not decode; livepush drops them instead, counts them, and
/// starts on the next keyframe.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SRTLateConnectTests {
    @Test func aConnectSlowerThanTheLatencyWindowStartsOnAFreshKeyframe() throws {
        let receiverPort = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let relay = try LossyUDPRelay(port: 0, targetPort: receiverPort, lossPercent: 0, lossy: [],
                                      outage: .init(direction: .toTarget, startSeconds: 0, durationSeconds: 1.5), deadlineSeconds: 60,
                                      lossyFirstBytes: 128...255)
        defer { relay.stop() }
        let log = try SRTPeers.streamThroughRelay(relay.socket.port, to: receiverPort, writingTo: dir.file("out.ts"),
                                                  latencyMilliseconds: 200, seconds: 6)
        #expect(relay.toTarget.dropped >= 2, "the relay lost \(relay.toTarget.dropped) handshakes")
        #expect(log.contains("SRT connect took longer than the latency window"), "\(log.suffix(1500))")
        let numbers = try SRTPeers.frameNumbers(of: dir.file("out.ts"))
        #expect(FrameCodeReadBack.inOrder(numbers) && numbers.count >= 2 * SRTPeers.fps, "\(numbers.count) frames: \(numbers.prefix(10))…; \(log.suffix(800))")
        // The first frame read back is the keyframe asked for on connecting, not one of those held.
        #expect((numbers.first ?? nil).map { $0 >= UInt32(SRTPeers.fps) } == true, "the stream starts at \(String(describing: numbers.first))")
    }
}

/// `--adaptive-bitrate` on SRT: when the receiver stops acknowledging, unacknowledged media fills
/// the latency window and the camera's encoder is turned down through the shared arbiter.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SRTAdaptiveBitrateTests {
    @Test func aFillingSendBufferLowersTheEncoderBitrate() throws {
        let receiverPort = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        // Every data packet towards the receiver is lost for 2 s, 4 s in; ACKs and keepalives pass.
        let relay = try LossyUDPRelay(port: 0, targetPort: receiverPort, lossPercent: 0, lossy: [],
                                      outage: .init(direction: .toTarget, startSeconds: 4, durationSeconds: 2), deadlineSeconds: 60,
                                      lossyFirstBytes: LossyUDPRelay.srtDataFirstBytes)
        defer { relay.stop() }
        let log = try SRTPeers.streamThroughRelay(relay.socket.port, to: receiverPort, writingTo: dir.file("out.ts"),
                                                  latencyMilliseconds: 400, seconds: 10, extra: ["--adaptive-bitrate"])
        #expect(relay.toTarget.dropped > 50, "the outage lost \(relay.toTarget.dropped) packets")
        let lowest = log.firstMatch(of: /lowest (\d+) kbit\/s, (\d+) changes/)
        let lowestKilobits = lowest.flatMap { Int($0.1) } ?? .max
        #expect(lowestKilobits < 1000, "the encoder was not turned down: \(log.suffix(1200))")
        #expect(log.contains("adaptive bitrate"), "the decision is logged with the send buffer: \(log.suffix(1200))")
    }
}

/// A link that goes silent both ways while the socket lives: livepush calls the SRT output stalled
/// from the receiver's missing acknowledgements (`--rtmp-stall-timeout`, which covers srt:// URLs
/// too), before libsrt's own 5 s idle timeout, and reconnects by itself; the next receiver's file
/// starts on a keyframe and continues the frame codes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SRTStallTests {
    @Test func aSilentLinkIsReportedStalledAndReplaced() throws {
        let receiverPort = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        var relay: LossyUDPRelay? = try Self.relay(on: 0, to: receiverPort, silent: false)
        defer { relay?.stop() }
        let relayPort = try #require(relay).socket.port
        let first = try SRTPeers.ffmpegListener(port: receiverPort, writingTo: dir.file("first.ts"))
        // Stopped with SIGINT once the second file holds its frames; the duration only bounds a hang.
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(relayPort)?latency=200"], seconds: 90, extra: ["--rtmp-stall-timeout", "1.5s"])
        // The link goes silent once the first file holds frames, and stays so until the stall is called
        // and the first receiver is gone, however long a busy machine takes for each.
        #expect(SRTPeers.waitForFrames(in: dir.file("first.ts"), atLeast: SRTPeers.fps, timeoutSeconds: 40),
                "the first receiver wrote no frames: \(livepush.errorOutput.suffix(1500))")
        relay?.stop()
        relay = nil
        relay = try Self.relay(on: relayPort, to: receiverPort, silent: true)
        #expect(livepush.waitUntil(timeoutSeconds: 40) { livepush.errorOutput.contains("stalled: no SRT acknowledgement for") },
                "never stalled: \(livepush.errorOutput.suffix(1500))")
        // The first receiver ends by its own idle timeout; a second one takes its port, as a restarted receiver would.
        #expect(first.wait(timeoutSeconds: 40) != nil, "the first receiver did not end: \(livepush.errorOutput.suffix(1500))")
        let second = try SRTPeers.ffmpegListener(port: receiverPort, writingTo: dir.file("second.ts"))
        // The link comes back just after a connect attempt failed, so the next one connects at once,
        // whatever the timing (a connect that completes late is SRTLateConnectTests' case).
        let failedAttempts = { livepush.errorOutput.components(separatedBy: "SRT connect failed").count }
        let failedBefore = failedAttempts()
        #expect(livepush.waitUntil(timeoutSeconds: 30) { failedAttempts() > failedBefore }, "\(livepush.errorOutput.suffix(1500))")
        relay?.stop()
        relay = nil
        relay = try Self.relay(on: relayPort, to: receiverPort, silent: false)
        #expect(SRTPeers.waitForFrames(in: dir.file("second.ts"), atLeast: 2 * SRTPeers.fps, timeoutSeconds: 60),
                "the second receiver wrote too few frames: \(livepush.errorOutput.suffix(1500))")
        livepush.interrupt()
        let status = livepush.wait(timeoutSeconds: 45)
        let log = livepush.output + livepush.errorOutput
        #expect(status == 0, "\(log.suffix(2000))")
        #expect(second.wait(timeoutSeconds: 10) != nil, "the second receiver did not see the end")
        let stall = log.split(separator: "\n").first { $0.contains("stalled: no SRT acknowledgement for") }
        #expect(stall != nil, "the stall is logged with its evidence: \(log.suffix(1500))")
        #expect(log.contains("stalled"), "\(log.suffix(1500))")
        let delivery = log.split(separator: "\n").first { $0.contains("delivery:") && $0.contains("SRT acknowledgement") } ?? ""
        #expect(delivery.contains("stalled"), "the summary's delivery line counts the stall as a reconnect cause: \(delivery)")
        let before = try SRTPeers.frameNumbers(of: dir.file("first.ts")).compactMap { $0 }
        let after = try SRTPeers.frameNumbers(of: dir.file("second.ts"))
        #expect(FrameCodeReadBack.inOrder(after) && after.count >= 2 * SRTPeers.fps, "\(after.count) frames after the reconnect; \(log.suffix(800))")
        #expect((after.first ?? 0).map { $0 > (before.last ?? .max) } ?? false, "the second file continues the first: \(before.suffix(3)) → \(after.prefix(3))")
    }

    /// A relay on `port` (bound again while the one it replaces closes its socket) that loses nothing,
    /// or, `silent`, every SRT control packet both ways (ACKs, keepalives, handshakes; media passes).
    static func relay(on port: Int, to targetPort: Int, silent: Bool) throws -> LossyUDPRelay {
        let outage = silent ? LossyUDPRelay.Outage(direction: [.toTarget, .fromTarget], startSeconds: 0, durationSeconds: .infinity) : nil
        func make() throws -> LossyUDPRelay {
            try LossyUDPRelay(port: port, targetPort: targetPort, lossPercent: 0, lossy: [], outage: outage, deadlineSeconds: 90)
        }
        for _ in 0..<100 {
            if let relay = try? make() { return relay }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try make()
    }
}
