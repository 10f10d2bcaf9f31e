import NIOCore

/// The kernel's view of a TCP socket that adaptive bitrate and delivery health need: smoothed RTT,
/// bytes not yet sent, bytes the peer's TCP acknowledged.
///
/// Glibc's `struct tcp_info` stops before `tcpi_notsent_bytes`, so the option is read into a raw buffer
/// and the two fields are taken at their offsets in Linux's uapi `struct tcp_info` (<linux/tcp.h>),
/// a layout the kernel only ever appends to (notsent since Linux 4.6; older kernels return fewer bytes).
public struct TCPInfo: Sendable, Hashable {
    public static let rttOffset = 68
    public static let notSentBytesOffset = 144
    public static let bytesAcknowledgedOffset = 120

    public var rttMicroseconds: Int
    /// nil when the kernel's structure is too short to carry it.
    public var notSentBytes: Int?
    /// `tcpi_bytes_acked`: bytes the peer's TCP acknowledged (a proxy's kernel, not necessarily the receiver).
    public var bytesAcknowledged: Int64

    /// Reads TCP_INFO from a socket channel (nil for channels that are not sockets).
    static func read(from channel: Channel) -> EventLoopFuture<TCPInfo?> {
        guard let provider = channel as? SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        let future: EventLoopFuture<RawTCPInfo> = provider.unsafeGetSocketOption(level: .tcp, name: .tcp_info)
        return future.map { TCPInfo(raw: $0) }.recover { _ in nil }
    }

    init(raw: RawTCPInfo) {
        rttMicroseconds = Int(raw.uint32(at: Self.rttOffset))
        let notSent = raw.uint32(at: Self.notSentBytesOffset)
        notSentBytes = Int(notSent)
        bytesAcknowledged = Int64(raw.uint64(at: Self.bytesAcknowledgedOffset))
    }
}

/// 256 zeroed bytes: room for every field up to `tcpi_notsent_bytes` and more.
struct RawTCPInfo: Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    init() {}

    /// A native-endian u32 at `offset`, as the kernel wrote it.
    func uint32(at offset: Int) -> UInt32 {
        withUnsafeBytes(of: words) { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) } // portability: native: the kernel's struct, not a wire format
    }

    func uint64(at offset: Int) -> UInt64 {
        withUnsafeBytes(of: words) { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) } // portability: native: the kernel's struct
    }
}
