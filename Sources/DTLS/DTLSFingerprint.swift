import COpenSSL

/// A certificate fingerprint as SDP carries it (RFC 8122 §5, `a=fingerprint:sha-256 AB:CD:…`):
/// WebRTC authenticates DTLS peers by comparing the certificate they present with this value
/// from the signalled offer/answer (RFC 8827 §6.5), not by a certificate authority.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash functions of RFC 8122's registry that OpenSSL computes here.
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "sha-1", sha224 = "sha-224", sha256 = "sha-256", sha384 = "sha-384", sha512 = "sha-512"

        /// The digest length in bytes.
        public var length: Int {
            switch self {
            case .sha1: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        var digest: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha224: EVP_sha224()
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        }
    }

    public let algorithm: Algorithm
    public let bytes: [UInt8]

    public init(algorithm: Algorithm, bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// Parses the attribute value `HASH-NAME HEX:HEX:…` (hash names are case-insensitive, hex either case).
    public init(sdpValue: String) throws(DTLSError) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { throw .malformedFingerprint(sdpValue) }
        guard let algorithm = Algorithm(rawValue: parts[0].lowercased()) else {
            throw .unsupportedFingerprintAlgorithm(String(parts[0]))
        }
        let octets = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(octets.count)
        for octet in octets {
            guard octet.count == 2, let byte = UInt8(octet, radix: 16) else { throw .malformedFingerprint(sdpValue) }
            bytes.append(byte)
        }
        guard bytes.count == algorithm.length else { throw .malformedFingerprint(sdpValue) }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    /// The fingerprint of a DER certificate held by OpenSSL (`X509 *`).
    init(certificate: OpaquePointer, algorithm: Algorithm) throws(DTLSError) {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, algorithm.digest, &digest, &length) == 1 else {
            throw .setupFailed(step: "X509_digest", openSSL: OpenSSLErrorQueue.drain())
        }
        self.init(algorithm: algorithm, bytes: Array(digest.prefix(Int(length))))
    }

    /// Upper-case hex octets joined by colons, as RFC 8122 writes them.
    public var hexValue: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// The `a=fingerprint:` attribute value.
    public var sdpValue: String { "\(algorithm.rawValue) \(hexValue)" }

    public var description: String { sdpValue }
}
