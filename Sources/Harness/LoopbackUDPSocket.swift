import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking UDP socket on 127.0.0.1 for the tests' own peers (the lossy relay, the NACK/PLI
/// receiver, a bridge to `openssl s_server`) and for finding free ports. Every receive has a timeout, so no test can hang on it.
/// Sendable: it holds only its descriptor, and the kernel serializes sends and receives on it.
public final class LoopbackUDPSocket: Sendable {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    public let descriptor: Int32
    public let port: Int

    public init(port: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = Self.address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw Failure(description: "bind 127.0.0.1:\(port): errno \(errno)")
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        self.port = Int(UInt16(bigEndian: local.sin_port))
    }

    deinit { close(descriptor) }

    /// Asks the kernel for a receive buffer of `bytes` (SO_RCVBUF, capped by net.core.rmem_max;
    /// then SO_RCVBUFFORCE, which root may use past the cap). Best effort: the default stays on failure.
    public func setReceiveBuffer(bytes: Int) {
        var size = Int32(bytes)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// An even port P with P and P + 1 free now (RTP and RTCP), from a bounded number of tries.
    public static func freePortPair() throws -> Int { try freePorts(count: 2) }

    /// An even port with the `count - 1` ports after it free too, probed together (RTP with audio
    /// takes four: video and its RTCP, audio and its RTCP).
    public static func freePorts(count: Int) throws -> Int {
        for _ in 0..<50 {
            let probe = try LoopbackUDPSocket()
            guard probe.port % 2 == 0, probe.port < 65_000 else { continue }
            let held = (1..<count).compactMap { try? LoopbackUDPSocket(port: probe.port + $0) }
            guard held.count == count - 1 else { continue }
            return probe.port
        }
        throw Failure(description: "no \(count) free UDP ports in a row on 127.0.0.1")
    }

    /// One datagram and the port it came from, or nil after `timeoutSeconds`.
    public func receive(timeoutSeconds: Double) -> (bytes: [UInt8], port: Int)? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeoutSeconds * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count >= 0 else { return nil }
        return (Array(buffer.prefix(count)), Int(UInt16(bigEndian: source.sin_port)))
    }

    public func send(_ bytes: [UInt8], toPort port: Int) {
        var address = Self.address(port: port)
        _ = bytes.withUnsafeBytes { payload in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, payload.baseAddress, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
