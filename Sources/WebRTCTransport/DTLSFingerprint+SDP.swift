import DTLS
import WebRTC

extension DTLS.DTLSFingerprint {
    /// The DTLS module's fingerprint for the one parsed from an SDP `a=fingerprint` line.
    init(sdpFingerprint: WebRTC.DTLSFingerprint) throws(DTLSError) {
        guard let algorithm = Algorithm(rawValue: sdpFingerprint.hashFunction.lowercased()) else {
            throw .unsupportedFingerprintAlgorithm(sdpFingerprint.hashFunction)
        }
        guard sdpFingerprint.digest.count == algorithm.length else {
            throw .malformedFingerprint("\(sdpFingerprint.hashFunction) of \(sdpFingerprint.digest.count) bytes")
        }
        self.init(algorithm: algorithm, bytes: sdpFingerprint.digest)
    }

    /// As WebRTC's SDP model writes it in our answer.
    var sdpFingerprint: WebRTC.DTLSFingerprint {
        WebRTC.DTLSFingerprint(hashFunction: algorithm.rawValue, digest: bytes)
    }
}
