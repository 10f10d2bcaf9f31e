import Codec
import Foundation
import Output
import RTMP
import RTMPClient
import Testing
import TestSupport

extension HostileServerTests {
    /// A keyframe with SPS and PPS in its parameter sets (x264's for 160x120 baseline, enough for the
    /// FLV sequence header) and `payload` bytes of slice data.
    static func keyFrame(millis: Int64, payload: Int) -> EncodedVideoFrame {
        let sps: [UInt8] = [0x67, 0x42, 0xc0, 0x0b, 0xd9, 0x02, 0x84, 0x7e, 0x5c, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40,
                            0x00, 0x00, 0x0f, 0x03, 0xc5, 0x0a, 0x92]
        let pps: [UInt8] = [0x68, 0xcb, 0x83, 0xcb, 0x20]
        let data = [0, 0, 0, 1, TestFrames.idr] + [UInt8](repeating: 0x5A, count: payload)
        return EncodedVideoFrame(codec: .h264, data: data, nalUnitRanges: [4..<data.count], ptsNanos: millis * 1_000_000,
                                 dtsNanos: millis * 1_000_000, isKeyFrame: true, parameterSets: ParameterSets(codec: .h264, sps: [sps], pps: [pps]))
    }

    /// Keyframes of `payload` bytes to `output`, one of each of renditions 0 up to `renditions` every 33 ms,
    /// until the task is cancelled.
    static func feedKeyFrames(to output: RTMPOutput, renditions: Int = 1, payload: Int) -> Task<Void, Never> {
        Task {
            var frame: Int64 = 0
            while !Task.isCancelled {
                for rendition in 0..<renditions {
                    var key = keyFrame(millis: frame * 33, payload: payload)
                    key.rendition = rendition
                    output.onEncodedFrame(key)
                }
                frame += 1
                try? await Task.sleep(for: .milliseconds(33))
            }
        }
    }

    /// A server that reads everything but never sends an Acknowledgement (as this test server, unlike
    /// nginx-rtmp): with a 1 s stall timeout, 4 s of frames stay `healthy` on one connection, judged
    /// by TCP_INFO's bytes acknowledged instead.
    @Test func aServerThatNeverAcknowledgesIsNotCalledStalled() async throws {
        let server = try HostileRTMPServer(.publishes(.streamIDWithoutNull))
        defer { server.close() }
        var configuration = try Self.output(port: server.port).configuration
        configuration.stallSeconds = 1
        let output = RTMPOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        #expect(await eventually(within: 10) { output.status.state == .running })
        var seen: Set<DeliveryHealth.State> = []
        for frame in 0..<120 {
            output.onEncodedFrame(Self.keyFrame(millis: Int64(frame) * 33, payload: 2000))
            try await Task.sleep(for: .milliseconds(33))
            if let health = output.status.health { seen.insert(health) }
        }
        let status = output.status
        await output.stop()
        #expect(seen == [.healthy], "\(seen); last error: \(status.lastError ?? "none")")
        #expect(server.connectionCount == 1)
        #expect(status.delivery?.reconnectCauses == [:])
        #expect(!server.record.messages.contains { $0.type == .acknowledgement }, "the server never acknowledged")
        #expect(status.framesSent > 100 && (status.delivery?.bytesAcknowledged ?? 0) > 100_000, "\(String(describing: status.delivery))")
    }
}

extension HostileServerTests {
    /// How the rarely-acknowledging server stops: behind a proxy that black-holes the path (with a
    /// small receive buffer), frozen (it stops reading; its kernel takes bytes until its small
    /// receive buffer is full), or sending an Acknowledgement lower than the last and reading on.
    enum SparseServerEnding: String, CaseIterable, Sendable { case blackHoledPath, frozenServer, backwardsAcknowledgement }

    /// A server that acknowledges only every 2.5 MB (whatever window it is asked for) is healthy for
    /// two of its steps, then stops taking the stream: the output is called stalled within a few
    /// stall timeouts. livepush never has 2.5 MB outstanding of its own, so a step that wide must
    /// not cover a frozen path; and a step backwards must not count as ~4 GiB acknowledged.
    @Test(arguments: SparseServerEnding.allCases)
    func aServerThatAcknowledgesRarelyIsCalledStalledOnceItStops(_ ending: SparseServerEnding) async throws {
        let step = 2_500_000
        let sparse: SparseEnding = switch ending {
        case .blackHoledPath: .keepsAcknowledging
        case .frozenServer: .stopsReading(afterAcknowledgements: 2)
        case .backwardsAcknowledgement: .goesBackwards(afterAcknowledgements: 2)
        }
        let server = try HostileRTMPServer(.publishes(.acknowledgesEvery(step, then: sparse)), receiveBufferBytes: ending == .frozenServer ? 32_768 : nil)
        defer { server.close() }
        let proxy = ending == .blackHoledPath ? try StallingProxy(to: server.port, receiveBufferBytes: 16_384) : nil
        defer { proxy?.close() }
        var configuration = try Self.output(port: proxy?.port ?? server.port).configuration
        configuration.stallSeconds = 2
        let output = RTMPOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        #expect(await eventually(within: 10) { output.status.state == .running })
        // About 900 KB/s of frames until the test ends, so every step of the server fills in seconds.
        let feeder = Self.feedKeyFrames(to: output, payload: 30_000)
        defer { feeder.cancel() }
        var seenBefore: Set<DeliveryHealth.State> = []
        let acknowledgedTwice = await eventually(within: 30) {
            if let health = output.status.health { seenBefore.insert(health) }
            return server.record.acknowledgementsSent >= 2
        }
        #expect(acknowledgedTwice, "the server acknowledged \(server.record.acknowledgementsSent) steps")
        #expect(!seenBefore.contains(.stalled) && output.status.delivery?.reconnectCauses == [:],
                "no false stall while the server takes the stream: \(seenBefore)")
        proxy?.stall()
        let stalled = await eventually(within: 30) { output.status.delivery?.reconnectCauses["stalled"] ?? 0 >= 1 }
        let status = output.status
        feeder.cancel()
        await output.stop()
        #expect(stalled, "\(ending): health \(String(describing: status.health)), \(String(describing: status.delivery)), last error \(status.lastError ?? "none")")
        #expect(status.lastError?.contains("no RTMP acknowledgement") == true || status.lastError?.contains("stalled") == true,
                "\(status.lastError ?? "none")")
    }
}
