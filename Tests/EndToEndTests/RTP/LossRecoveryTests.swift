import Foundation
import Testing
import TestSupport

/// 5 % of livepush's packets are lost on the way; a receiver's NACKs get every one of them back,
/// and its PLI gets a key frame at once although the next scheduled one is far away.
@Suite(.serialized, .timeLimit(.minutes(2))) struct LossRecoveryTests {
    @Test func nacksRepairLossAndPLIGetsAKeyFrame() throws {
        let relayPort = try LoopbackUDPSocket.freePortPair()
        let receiverSocket = try LoopbackUDPSocket()
        let relay = try LossyUDPRelay(port: relayPort, targetPort: receiverSocket.port, lossPercent: 5, lossy: .toTarget, deadlineSeconds: 40)
        defer { relay.stop() }
        // Key frames only on request (keyint 60 s): any IDR after the first is an answer to a PLI.
        let stream = try LivepushRTPStream(port: relayPort, arguments: ["--keyint", "60"], seconds: 30)
        var receiver = NACKReceiver(socket: receiverSocket, feedbackPort: relayPort)
        // About 6 s of media (the test pattern compresses to about one packet per frame), counted from
        // whenever livepush's first packet comes: a slow start shortens nothing.
        try receiver.run(seconds: 25) { $0.received >= 180 }
        let keyFramesBeforePLI = receiver.keyFrameTimes.count
        let pliTime = receiver.now
        let pliTimestamp = try #require(receiver.latestTimestamp, "no media in 25 s")
        try receiver.sendPLI()
        try receiver.run(seconds: 10) { $0.keyFrameRTPTimestamps.count > keyFramesBeforePLI }
        // Two more seconds for the last losses' repairs.
        try receiver.run(seconds: 2)
        stream.process.kill(signal: SIGTERM)

        #expect(receiver.received > 200, "received \(receiver.received) packets")
        let media = relay.toTarget
        #expect(media.dropped * 100 / max(1, media.dropped + media.forwarded) >= 4, "relay dropped \(media.dropped) of \(media.dropped + media.forwarded)")
        #expect(receiver.nacksSent > 0 && relay.fromTarget.forwarded > 0)
        #expect(receiver.repaired >= media.dropped * 9 / 10, "repaired \(receiver.repaired), relay dropped \(media.dropped) (retransmissions included)")
        #expect(receiver.unrepaired(olderThan: 1).isEmpty, "never repaired: \(receiver.unrepaired(olderThan: 1))")

        // The answer, in media time: the key frame's capture is within half a second of the newest
        // frame the receiver had when it asked (the next key frame was a minute away), whatever the
        // machine's load did to arrival times.
        let answer = try #require(receiver.keyFrameRTPTimestamps.dropFirst(keyFramesBeforePLI).first,
                                  "no key frame after the PLI (key frames at \(receiver.keyFrameTimes))")
        let delay = Double(Int32(bitPattern: answer &- pliTimestamp)) / 90_000
        #expect(delay < 0.5, "key frame \(Int(delay * 1000)) ms of media after the PLI")
        let firstKeyFrame = receiver.keyFrameTimes.first ?? 0
        #expect(receiver.keyFrameTimes.filter { $0 > firstKeyFrame + 2 && $0 < pliTime }.isEmpty, "no key frame without a request in between")
    }
}
