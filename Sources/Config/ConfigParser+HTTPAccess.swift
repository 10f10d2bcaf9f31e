import Foundation

/// The keys that say who may reach the HTTP server and how: `viewer_token`, `cors_origins`,
/// `limits` and `tls` (`api_token`, `auth` and `allowed_hosts` are read beside `listen`).
extension ConfigParser {
    static let limitKeys = ["max_connections", "request_timeout", "whep_viewers_per_address", "requests_per_minute"]
    static let tlsKeys = ["cert", "key"]

    func parseHTTPAccess(_ top: ConfigMapping, into config: inout LivepushConfig) throws(ConfigError) {
        if let token = top["viewer_token"] {
            config.viewerToken = try strongSecret(token, key: "viewer_token")
            guard config.apiToken != nil else { throw token.error("a viewer_token needs an api_token for the admin too; add api_token: env:LIVEPUSH_TOKEN") }
            guard config.viewerToken?.value != config.apiToken?.value else { throw token.error("viewer_token must differ from api_token, or a viewer could change settings") }
        }
        if let origins = top["cors_origins"] {
            config.corsOrigins = try origins.sequence().map { node throws(ConfigError) in
                let origin = try node.string().lowercased()
                guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
                      url.path.isEmpty, url.query == nil, !origin.hasSuffix("/") else {
                    throw node.error("'\(origin)' must be an origin: scheme, host and optional port, e.g. https://player.example")
                }
                return origin
            }
        }
        if let node = top["limits"] {
            let map = try node.mapping(allowed: Self.limitKeys)
            if let value = map["max_connections"] { config.limits.maximumConnections = try value.int(in: 4...10_000) }
            if let value = map["request_timeout"] { config.limits.requestTimeoutSeconds = try value.double(in: 1...300) }
            if let value = map["whep_viewers_per_address"] { config.limits.whepViewersPerAddress = try value.int(in: 1...1000) }
            if let value = map["requests_per_minute"] { config.limits.requestsPerMinutePerAddress = try value.int(in: 1...10_000) }
        }
        if let node = top["tls"] {
            let map = try node.mapping(allowed: Self.tlsKeys)
            let cert = try map.required("cert"), key = try map.required("key")
            config.tls = TLSFiles(certificatePath: try readablePath(cert), privateKeyPath: try readablePath(key))
        }
    }

    /// An access token (`api_token`, `viewer_token`, a whep output's `token`), refused when it is easy to guess (``TokenStrength``).
    func strongSecret(_ node: ConfigNode, key: String) throws(ConfigError) -> Secret {
        let secret = try secret(node)
        if let weakness = TokenStrength.weakness(of: secret.value, key: key) { throw node.error(weakness) }
        return secret
    }

    /// A PEM file's path, checked to be readable now so a typo fails at start, naming the line.
    private func readablePath(_ node: ConfigNode) throws(ConfigError) -> String {
        let path = try node.string()
        guard readFile(path) != nil else { throw node.error("cannot read \(path): give the path of a PEM file livepush may read") }
        return path
    }
}
