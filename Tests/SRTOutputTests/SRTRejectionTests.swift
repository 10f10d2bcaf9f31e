import CSRT
@testable import SRTOutput
import Testing

/// What a receiver's rejection reason becomes: a stream ID already being published
/// (SRT_REJX_CONFLICT, 1409) is the SRT form of RTMP's "key in use" (retried soon after a loss of
/// ours, ``Output/KeyInUseRetry``); every other refusal keeps its meaning and takes the backoff.
@Suite struct SRTRejectionTests {
    static func error(_ reason: Int32) -> SRTOutputError {
        SRTSocket.error(rejectReason: reason, target: "srt://ingest:9000", libsrtError: "Connection setup failure: connection timed out")
    }

    @Test func conflictIsAStreamIDInUse() {
        #expect(SRTSocket.conflictRejectReason == 1409)
        let inUse = Self.error(1409)
        #expect(inUse == .streamIDInUse(target: "srt://ingest:9000"))
        #expect(inUse.isKeyInUse && inUse.isRetryable)
        #expect("\(inUse)".contains("already being published") && "\(inUse)".contains("1409"), "\(inUse)")
    }

    @Test func otherRefusalsAreNotAnInUseKey() {
        let forbidden = Self.error(1403)  // SRT_REJX_FORBIDDEN: a server's own "not allowed"
        guard case .connectFailed(target: "srt://ingest:9000", _) = forbidden else { Issue.record("\(forbidden)"); return }
        let passphrase = Self.error(Int32(SRT_REJ_BADSECRET.rawValue))
        guard case .passphraseRejected = passphrase else { Issue.record("\(passphrase)"); return }
        #expect(Self.error(Int32(SRT_REJ_UNKNOWN.rawValue))
            == .connectFailed(target: "srt://ingest:9000", reason: "Connection setup failure: connection timed out"))
        let timeout = Self.error(Int32(SRT_REJ_TIMEOUT.rawValue))
        #expect([forbidden, passphrase, timeout, .stalled(evidence: "no ACK")].allSatisfy { !$0.isKeyInUse })
    }
}
