import NIOCore
import NIOPosix

/// The listening half of the tests' TCP proxies: accepts on 127.0.0.1 (a free port), connects each
/// client to `targetPort`, and lets `relay` put its handlers on both channels (client, server). Client
/// channels do not read by themselves, so a relay decides when to take bytes from the sender.
enum LoopbackTCPRelay {
    static func listen(to targetPort: Int, receiveBufferBytes: Int? = nil,
                       relay: @escaping @Sendable (_ client: Channel, _ server: Channel) throws -> Void) throws -> Channel {
        var bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        if let receiveBufferBytes { bootstrap = bootstrap.serverChannelOption(.socketOption(.so_rcvbuf), value: .init(receiveBufferBytes)) }
        return try bootstrap
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { client in
                ClientBootstrap(group: client.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMap { server in client.eventLoop.makeCompletedFuture { try relay(client, server) } }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
    }
}
