import COpenSSL

/// One OpenSSL `SSL_CTX` for DTLS 1.2 with DTLS-SRTP: this side's certificate, `use_srtp`
/// SRTP_AES128_CM_SHA1_80 (RFC 5764 §4.1.2, the profile WebRTC requires), a mandatory peer
/// certificate, and peer verification by SDP fingerprint instead of a CA (RFC 8827 §6.5).
/// Shared by every ``DTLSEndpoint``; OpenSSL makes connections from one context thread-safely.
public final class DTLSContext: @unchecked Sendable {
    /// `SSL_CTX *`, owned.
    let context: OpaquePointer
    public let certificate: DTLSCertificate

    /// The SRTP protection profile offered and accepted (RFC 5764 §4.1.2 name).
    static let srtpProfileName = "SRTP_AES128_CM_SHA1_80"
    /// Its IANA identifier, what `SSL_get_selected_srtp_profile` reports.
    static let srtpProfileID: UInt = 0x0001

    public init(certificate: DTLSCertificate) throws(DTLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(DTLS_method()) else {
            throw .setupFailed(step: "SSL_CTX_new(DTLS_method())", openSSL: OpenSSLErrorQueue.drain())
        }
        let configured = livepush_SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) == 1
            && livepush_SSL_CTX_set_max_proto_version(context, DTLS1_2_VERSION) == 1
            && SSL_CTX_use_certificate(context, certificate.certificate) == 1
            && SSL_CTX_use_PrivateKey(context, certificate.privateKey) == 1
            && SSL_CTX_check_private_key(context) == 1
            // use_srtp returns 0 on success, unlike the rest of the API.
            && SSL_CTX_set_tlsext_use_srtp(context, Self.srtpProfileName) == 0
        guard configured else {
            let reason = OpenSSLErrorQueue.drain()
            SSL_CTX_free(context)
            throw .setupFailed(step: "configuring the DTLS context", openSSL: reason)
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        SSL_CTX_set_cert_verify_callback(context, { store, _ in DTLSPeerCheck.verify(store: store) }, nil)
        self.context = context
        self.certificate = certificate
    }

    deinit { SSL_CTX_free(context) }
}
