/// Limits the HTTP server holds every client to, so that nothing a client sends (or does not send)
/// grows memory or ties the server up without bound. Each has a default; `limits:` in the config
/// changes only what it names.
public struct HTTPLimits: Sendable, Equatable {
    /// Connections open at once; more wait in the kernel's accept queue.
    public var maximumConnections = 128
    /// A client must send a whole request (headers and body) within this long of connecting or of
    /// its previous answer, else the connection is closed: a slow or silent client cannot hold it.
    public var requestTimeoutSeconds = 10.0
    /// WHEP viewers one client address may have at once (the total is the whep output's `max_viewers`).
    public var whepViewersPerAddress = 4
    /// WHEP offers and login attempts one client address may make per minute.
    public var requestsPerMinutePerAddress = 30

    public init() {}
}

/// `tls: {cert, key}`: PEM files for HTTPS on the dashboard, the API and WHEP. Read at start and
/// again on SIGHUP, so a renewed certificate needs no restart.
public struct TLSFiles: Sendable, Equatable {
    public var certificatePath: String
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}
