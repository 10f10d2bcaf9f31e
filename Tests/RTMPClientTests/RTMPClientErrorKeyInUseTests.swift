import RTMP
import RTMPClient
import Testing

/// Which refusals count as a key in use (retried soon after a loss of ours, ``KeyInUseRetry``).
@Suite struct RTMPClientErrorKeyInUseTests {
    @Test func badNameIsAKeyInUseAndOtherRefusalsAreNot() {
        let inUse = RTMPClientError.protocolError(.publishRejected(code: RTMPStatus.Code.publishBadName, description: "Already publishing"))
        #expect(inUse.isKeyInUse && inUse.isRetryable)
        let others: [RTMPClientError] = [
            .protocolError(.publishRejected(code: RTMPStatus.Code.publishUnauthorized, description: "bad key")),
            .protocolError(.publishRejected(code: RTMPStatus.Code.publishRejected, description: "")),
            .protocolError(.connectRejected(code: RTMPStatus.Code.connectRejected, description: "Already publishing")),
            .closedByServer(phase: "while publishing"),
            .stalled(evidence: "no RTMP acknowledgement for 3.0 s"),
        ]
        #expect(others.allSatisfy { !$0.isKeyInUse })
    }
}
