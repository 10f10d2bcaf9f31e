import COpenSSL

/// Per-connection state OpenSSL's C callbacks need, reached through the `SSL`'s ex_data slot 0:
/// the fingerprint the SDP announced (checked during the handshake, so a mismatch aborts it with
/// a bad_certificate alert instead of leaking keys) and the initial retransmission timeout.
final class DTLSPeerCheck {
    let expected: DTLSFingerprint
    /// The hash function `expected` was made with (``DTLSFingerprint/checkableAlgorithm()``).
    let algorithm: DTLSFingerprint.Algorithm
    let initialTimeoutMicros: UInt32
    /// Set by the verify callback when the peer's certificate did not match.
    private(set) var mismatch: DTLSError?
    /// Set once the peer's certificate matched.
    private(set) var verified = false

    /// RFC 6347 §4.2.4.1: back off by doubling, up to 60 s.
    static let maximumTimeoutMicros: UInt32 = 60_000_000

    init(expected: DTLSFingerprint, algorithm: DTLSFingerprint.Algorithm, initialTimeoutMicros: UInt32) {
        self.expected = expected
        self.algorithm = algorithm
        self.initialTimeoutMicros = initialTimeoutMicros
    }

    static func of(_ ssl: OpaquePointer?) -> DTLSPeerCheck? {
        guard let ssl, let pointer = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<DTLSPeerCheck>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// `SSL_CTX_set_cert_verify_callback`: accepts exactly the certificate whose digest equals the
    /// announced fingerprint (self-signed is expected; chains and CAs play no part).
    static func verify(store: OpaquePointer?) -> Int32 {
        guard let store,
              let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
              let check = of(OpaquePointer(ssl)),
              let leaf = X509_STORE_CTX_get0_cert(store) else { return 0 }
        guard let actual = try? DTLSFingerprint(certificate: leaf, algorithm: check.algorithm) else { return 0 }
        if actual == check.expected {
            check.verified = true
            return 1
        }
        check.mismatch = .fingerprintMismatch(expected: check.expected.hexValue, actual: actual.hexValue)
        X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
        return 0
    }

    /// `DTLS_set_timer_cb`: the first timeout, then doubling up to the maximum.
    static func nextTimeout(ssl: OpaquePointer?, previousMicros: UInt32) -> UInt32 {
        guard previousMicros > 0 else { return of(ssl)?.initialTimeoutMicros ?? 1_000_000 }
        return min(previousMicros, maximumTimeoutMicros / 2) * 2
    }
}
