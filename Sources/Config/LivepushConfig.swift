/// A whole `livepush serve` configuration, validated: every value here was checked when the
/// YAML was read (``ConfigParser``), so the server only has to apply it.
public struct LivepushConfig: Sendable, Equatable {
    /// Where the dashboard, API and metrics listen.
    public var listen: ListenAddress
    /// The admin's bearer token: the API's controls, and everything a viewer may do. Nil leaves the
    /// whole server open, which is safe on loopback only.
    public var apiToken: Secret?
    /// The viewer's token: the dashboard's read-only views, snapshots, metrics and WHEP. Nil: those
    /// need the admin token too (when one is set).
    public var viewerToken: Secret?
    /// Origins of pages elsewhere allowed to use the WHEP endpoint from a browser (CORS), e.g.
    /// `https://player.example`; empty: only pages this server serves.
    public var corsOrigins: [String] = []
    public var limits = HTTPLimits()
    /// HTTPS for everything the server answers; nil: plain HTTP.
    public var tls: TLSFiles?
    public var cameras: [CameraConfig]
    public var audio: AudioConfig?
    /// Host names the HTTP server answers to besides loopback and the listen address (the names
    /// the box is reached by on a LAN); any other Host is refused, which stops DNS rebinding.
    public var allowedHosts: [String]
    /// `auth: none`: listen beyond loopback without an api_token anyway (a warning is printed).
    /// Without it, serve refuses to start there.
    public var openAccess = false

    public init(listen: ListenAddress = .defaultAddress, apiToken: Secret? = nil, cameras: [CameraConfig], audio: AudioConfig? = nil,
                allowedHosts: [String] = []) {
        self.listen = listen
        self.apiToken = apiToken
        self.cameras = cameras
        self.audio = audio
        self.allowedHosts = allowedHosts
    }

    public func camera(_ id: String) -> CameraConfig? { cameras.first { $0.id == id } }
}

/// `HOST:PORT` the HTTP server binds.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public static let defaultAddress = ListenAddress(host: "127.0.0.1", port: 8080)

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `127.0.0.1:8080`, `0.0.0.0:80`, `[::1]:8080` or `:8080` (all interfaces).
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.init(host: host.isEmpty ? "0.0.0.0" : host, port: port)
    }

    /// True for addresses reachable from other machines (anything but loopback).
    public var isAllInterfacesOrPublic: Bool {
        !(host == "localhost" || host == "::1" || host.hasPrefix("127."))
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
