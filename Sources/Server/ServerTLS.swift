import Config
import NIOSSL
import Synchronization

/// HTTPS for the dashboard, the API and WHEP, from the config's `tls: {cert, key}` PEM files;
/// TLS 1.2 or later with forward-secret AEAD suites only (``forwardSecretAEADSuites``).
/// Every TLS handshake takes the certificate loaded last, so ``reload(_:)`` (on SIGHUP) puts a
/// renewed certificate in use without a restart or a dropped connection.
public final class ServerTLS: Sendable {
    private struct Identity: Sendable {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
    }
    /// Shared with the handshake callback (a class, so the closure and ``reload(_:)`` see one value).
    private final class CurrentIdentity: Sendable {
        let value: Mutex<Identity>
        init(_ identity: Identity) { value = Mutex(identity) }
    }
    private let identity: CurrentIdentity
    /// The server configuration Hummingbird's TLS channel uses; it asks ``identity`` per handshake.
    public let configuration: TLSConfiguration

    public init(files: TLSFiles) throws(ServerTLSError) {
        let loaded = try Self.load(files)
        let identity = CurrentIdentity(loaded)
        self.identity = identity
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: loaded.chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(loaded.key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = Self.forwardSecretAEADSuites
        configuration.sslContextCallback = { _, promise in
            var override = NIOSSLContextConfigurationOverride()
            let current = identity.value.withLock { $0 }
            override.certificateChain = current.chain.map { .certificate($0) }
            override.privateKey = .privateKey(current.key)
            promise.succeed(override)
        }
        self.configuration = configuration
    }

    /// TLS 1.2's suites that are allowed: ephemeral ECDH key exchange (a stolen key does not
    /// decrypt recorded sessions) and AEAD ciphers only (no CBC, no RSA key exchange), as Mozilla's
    /// "intermediate" profile. TLS 1.3's suites all have both; TLS 1.0 and 1.1 are refused
    /// (NIO-SSL's defaults allow them, with CBC and RSA suites).
    static let forwardSecretAEADSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// Loads the files again; on an error the certificate in use stays.
    public func reload(_ files: TLSFiles) throws(ServerTLSError) {
        let loaded = try Self.load(files)
        identity.value.withLock { $0 = loaded }
    }

    private static func load(_ files: TLSFiles) throws(ServerTLSError) -> Identity {
        let chain: [NIOSSLCertificate], key: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(files.certificatePath) } catch {
            throw .unreadableCertificate(files.certificatePath, "\(error)")
        }
        guard !chain.isEmpty else { throw .unreadableCertificate(files.certificatePath, "no certificate in the file") }
        do { key = try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem) } catch {
            throw .unreadableKey(files.privateKeyPath, "\(error)")
        }
        return Identity(chain: chain, key: key)
    }
}

/// Why the HTTPS certificate or key could not be used.
public enum ServerTLSError: Error, CustomStringConvertible, Equatable {
    case unreadableCertificate(String, String)
    case unreadableKey(String, String)

    public var description: String {
        switch self {
        case let .unreadableCertificate(path, reason): "tls.cert \(path) is not a PEM certificate livepush can read (\(reason)); check the path and that it holds -----BEGIN CERTIFICATE-----"
        case let .unreadableKey(path, reason): "tls.key \(path) is not a PEM private key livepush can read (\(reason)); check the path and its permissions"
        }
    }
}
