import CSRT
import Foundation
import Synchronization

/// The callers that dial into a listener, so that one libsrt turns away in the handshake is named
/// instead of vanishing: libsrt rejects a caller whose passphrase does not match (SRT_REJ_BADSECRET,
/// or SRT_REJ_UNSECURE when one side has none) without a word to the listening application.
///
/// libsrt's listen callback (`srt_listen_callback`) sees every caller's conclusion handshake, with
/// the socket that ``SRTSocket/acceptPending()`` would return, before the key material is checked.
/// A socket that closes without ever being accepted was rejected after that point; with a
/// passphrase on the listener, that is a caller whose key material did not match. (The rejection
/// reason itself stays inside libsrt on the listener's side: `srt_getrejectreason` on that socket
/// says "unknown".)
///
/// The callback runs on libsrt's receive thread; the output's thread reads ``rejected(accepted:)``.
final class SRTCallerWatch: Sendable {
    struct Caller: Sendable {
        let socket: SRTSOCKET
        let address: String
    }

    /// Callers seen and not yet accepted or rejected; at most ``capacity`` (more are not tracked).
    private let callers = Mutex<[Caller]>([])
    static let capacity = 16

    /// Installs the callback on `listener`; the watch must live as long as the listening socket.
    func install(on listener: SRTSOCKET) -> Bool {
        srt_listen_callback(listener, { opaque, socket, _, peer, _ in
            guard let opaque else { return 0 }
            Unmanaged<SRTCallerWatch>.fromOpaque(opaque).takeUnretainedValue().noted(socket: socket, address: SRTCallerWatch.describe(peer))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque()) != csrt_error()
    }

    private func noted(socket: SRTSOCKET, address: String) {
        callers.withLock { list in
            if list.count < Self.capacity { list.append(Caller(socket: socket, address: address)) }
        }
    }

    /// The addresses of callers rejected since the last call: their sockets closed unaccepted.
    /// `accepted` is the socket just accepted, if any (no longer watched).
    func rejected(accepted: SRTSOCKET?) -> [String] {
        callers.withLock { list in
            var addresses: [String] = []
            list.removeAll { caller in
                if caller.socket == accepted { return true }
                switch srt_getsockstate(caller.socket) {
                case SRTS_BROKEN, SRTS_CLOSING, SRTS_CLOSED, SRTS_NONEXIST:
                    addresses.append(caller.address)
                    return true
                default:
                    return false
                }
            }
            return addresses
        }
    }

    /// "127.0.0.1:50412" ("[::1]:50412" for IPv6).
    static func describe(_ peer: UnsafePointer<sockaddr>?) -> String {
        guard let peer else { return "an unknown address" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        /// What inet_ntop wrote, up to its terminating zero.
        func written() -> String { String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        switch Int32(peer.pointee.sa_family) {
        case AF_INET:
            return peer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var ip = address.pointee.sin_addr
                inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                return "\(written()):\(UInt16(bigEndian: address.pointee.sin_port))"
            }
        case AF_INET6:
            return peer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var ip = address.pointee.sin6_addr
                inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                return "[\(written())]:\(UInt16(bigEndian: address.pointee.sin6_port))"
            }
        default:
            return "an unknown address"
        }
    }
}
