import Config
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore

/// The Hummingbird application both front ends' HTTP servers run (`serve`, and `stream --web`'s
/// player): connections capped at `limits.max_connections`, each must send a whole request, and take
/// its answers, within `limits.request_timeout` (``ConnectionProgressHandler``), HTTPS when `tls` is given.
enum HTTPApplication {
    static func make(router: Router<ServerContext>, host: String, port: Int, limits: HTTPLimits, tls: ServerTLS?, logger: Logger,
                     onRunning: @escaping @Sendable (Int) async -> Void) throws -> some ApplicationProtocol {
        let timeout = TimeAmount.nanoseconds(Int64(limits.requestTimeoutSeconds * 1e9))
        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionProgressHandler(timeout: timeout, logger: logger)], idleTimeout: timeout)
        let server: HTTPServerBuilder = if let tls { try .tls(.http1(configuration: http1), tlsConfiguration: tls.configuration) } else { .http1(configuration: http1) }
        return Application(router: router, server: server,
                           configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "livepush",
                                                                   availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections, logger: logger)),
                           onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
                           logger: logger)
    }
}
