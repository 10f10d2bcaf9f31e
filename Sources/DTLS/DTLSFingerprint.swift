import COpenSSL

/// A certificate fingerprint as SDP carries it (RFC 8122 §5, `a=fingerprint:sha-256 AB:CD:…`):
/// WebRTC authenticates DTLS peers by comparing the certificate they present with this value
/// from the signalled offer/answer (RFC 8827 §6.5), not by a certificate authority.
///
/// The one fingerprint type: WebRTC's SDP model reads and writes it, ``DTLSEndpoint`` checks the
/// peer's certificate against it. A parsed fingerprint may name a hash function OpenSSL does not
/// compute here (``algorithm`` is then nil): the SDP still round-trips, and ``DTLSEndpoint``
/// refuses it with ``DTLSError/unsupportedFingerprintAlgorithm(_:)``.
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

    /// Why an `a=fingerprint` value is not `HASH-NAME HEX:HEX:…`, in words for an SDP parse error.
    public struct SyntaxError: Error, Sendable, Equatable {
        public let reason: String
    }

    /// The hash function's name, lower-cased (`sha-256`).
    public let hashFunction: String
    public let bytes: [UInt8]

    /// The hash function, when it is one OpenSSL computes here.
    public var algorithm: Algorithm? { Algorithm(rawValue: hashFunction) }

    public init(algorithm: Algorithm, bytes: [UInt8]) {
        hashFunction = algorithm.rawValue
        self.bytes = bytes
    }

    /// Parses the attribute value `HASH-NAME HEX:HEX:…` as SDP carries it: hash names are
    /// case-insensitive and kept even when unknown, hex is either case, and the digest is 16 to 64
    /// bytes (sha-1 is 20, sha-512 64).
    public init(sdp value: Substring) throws(SyntaxError) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 2 else { throw SyntaxError(reason: "fingerprint needs '<hash> <hex>'") }
        var bytes: [UInt8] = []
        for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw SyntaxError(reason: "fingerprint byte '\(pair.prefix(8))' is not two hex digits")
            }
            bytes.append(byte)
        }
        guard (16...64).contains(bytes.count) else { throw SyntaxError(reason: "fingerprint of \(bytes.count) bytes") }
        hashFunction = fields[0].lowercased()
        self.bytes = bytes
    }

    /// Parses a value this module can check: as ``init(sdp:)``, and the hash function one of
    /// ``Algorithm`` with a digest of its length.
    public init(sdpValue: String) throws(DTLSError) {
        let fields = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        if fields.count == 2, Algorithm(rawValue: fields[0].lowercased()) == nil {
            throw .unsupportedFingerprintAlgorithm(String(fields[0]))
        }
        do {
            try self.init(sdp: Substring(sdpValue))
        } catch {
            throw .malformedFingerprint(sdpValue)
        }
        guard bytes.count == algorithm?.length else { throw .malformedFingerprint(sdpValue) }
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

    /// The hash function to check a peer's certificate with: one OpenSSL computes, and a digest
    /// of its length.
    func checkableAlgorithm() throws(DTLSError) -> Algorithm {
        guard let algorithm else { throw .unsupportedFingerprintAlgorithm(hashFunction) }
        guard bytes.count == algorithm.length else { throw .malformedFingerprint("\(hashFunction) of \(bytes.count) bytes") }
        return algorithm
    }

    /// Upper-case hex octets joined by colons, as RFC 8122 writes them.
    public var hexValue: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// The `a=fingerprint:` attribute value.
    public var sdpValue: String { "\(hashFunction) \(hexValue)" }

    public var description: String { sdpValue }
}
