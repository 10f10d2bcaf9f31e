import Hummingbird
import NIOCore

/// The request context every livepush route uses: Hummingbird's basics plus the client's address,
/// which per-address limits (WHEP viewers, offers and logins per minute) are counted by.
public struct ServerContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address as text; "unknown" when the channel has none (a test's embedded channel).
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
