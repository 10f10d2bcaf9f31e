import NIOCore
import WebRTC

extension TransportAddress {
    /// From a socket's address (nil for Unix sockets).
    init?(socketAddress: SocketAddress) {
        guard let ip = socketAddress.ipAddress, let port = socketAddress.port, let address = IPAddress(ip) else { return nil }
        self.init(ip: address, port: UInt16(truncatingIfNeeded: port))
    }

    var socketAddress: SocketAddress {
        get throws { try SocketAddress(ipAddress: ip.description, port: Int(port)) }
    }
}
