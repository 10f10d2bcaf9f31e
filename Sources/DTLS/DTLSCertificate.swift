import COpenSSL

/// A freshly generated ECDSA P-256 key and self-signed certificate, as WebRTC endpoints use
/// (RFC 8827 §6.5: the certificate is trusted through the SDP fingerprint, so no CA is involved).
/// Generated once at start and shared by every connection; immutable after creation, so it is
/// safe to share across threads (OpenSSL reference-counts what contexts take from it).
public final class DTLSCertificate: @unchecked Sendable {
    /// `EVP_PKEY *`, owned.
    let privateKey: OpaquePointer
    /// `X509 *`, owned.
    let certificate: OpaquePointer
    /// The SHA-256 fingerprint for this side's `a=fingerprint`.
    public let fingerprint: DTLSFingerprint

    /// Generates a key pair and a certificate valid from a day ago (clock skew) for `validityDays`.
    public init(commonName: String = "livepush", validityDays: Int = 30) throws(DTLSError) {
        OpenSSLErrorQueue.clear()
        guard let key = livepush_EVP_EC_gen_P256() else {
            throw .certificateGenerationFailed(step: "EVP_EC_gen(P-256)", openSSL: OpenSSLErrorQueue.drain())
        }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw .certificateGenerationFailed(step: "X509_new", openSSL: OpenSSLErrorQueue.drain())
        }
        let secondsPerDay = 86_400
        let signed = X509_set_version(x509, 2) == 1 // X.509 v3
            && ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), UInt64.random(in: 1 ... UInt64(Int64.max))) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x509), -secondsPerDay) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x509), validityDays * secondsPerDay) != nil
            && X509_set_pubkey(x509, key) == 1
            && X509_NAME_add_entry_by_txt(X509_get_subject_name(x509), "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_issuer_name(x509, X509_get_subject_name(x509)) == 1
            && X509_sign(x509, key, EVP_sha256()) > 0
        let digest = signed ? try? DTLSFingerprint(certificate: x509, algorithm: .sha256) : nil
        guard let digest else {
            let reason = OpenSSLErrorQueue.drain()
            X509_free(x509)
            EVP_PKEY_free(key)
            throw .certificateGenerationFailed(step: "self-signing the certificate", openSSL: reason)
        }
        privateKey = key
        certificate = x509
        fingerprint = digest
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }
}
