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
        let receiver = try SRTPeers.ffmpegListener(port: receiverPort, writingTo: dir.file("out.ts"))
        Thread.sleep(forTimeInterval: 0.5)
        // 100 ms round trip: a 600 ms window leaves time for several retransmissions of a packet.
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(relay.socket.port)?latency=600"], seconds: 8)
        let status = livepush.wait(timeoutSeconds: 45)
        let log = livepush.output + livepush.errorOutput
        #expect(status == 0, "\(log.suffix(2000))")
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        #expect(relay.toTarget.dropped > 20, "the relay lost \(relay.toTarget.dropped) of \(relay.toTarget.forwarded + relay.toTarget.dropped) packets")
        let retransmitted = log.firstMatch(of: /(\d+) retransmitted/).flatMap { Int($0.1) } ?? 0
        let tooLate = log.firstMatch(of: /(\d+) dropped too late/).flatMap { Int($0.1) } ?? -1
        #expect(retransmitted >= relay.toTarget.dropped, "libsrt retransmitted \(retransmitted) for \(relay.toTarget.dropped) lost; \(log.suffix(600))")
        #expect(tooLate == 0, "\(log.suffix(600))")
        try LivepushSRTTests.expectWholeStream(dir.file("out.ts"), seconds: 8, log: log)
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
        let receiver = try SRTPeers.ffmpegListener(port: receiverPort, writingTo: dir.file("out.ts"))
        Thread.sleep(forTimeInterval: 0.5)
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(relay.socket.port)?latency=400"], seconds: 10, extra: ["--adaptive-bitrate"])
        let status = livepush.wait(timeoutSeconds: 45)
        let log = livepush.output + livepush.errorOutput
        #expect(status == 0, "\(log.suffix(2000))")
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        #expect(relay.toTarget.dropped > 50, "the outage lost \(relay.toTarget.dropped) packets")
        let lowest = log.firstMatch(of: /lowest (\d+) kbit\/s, (\d+) changes/)
        let lowestKilobits = lowest.flatMap { Int($0.1) } ?? .max
        #expect(lowestKilobits < 1000, "the encoder was not turned down: \(log.suffix(1200))")
        #expect(log.contains("adaptive bitrate"), "the decision is logged with the send buffer: \(log.suffix(1200))")
    }
}
