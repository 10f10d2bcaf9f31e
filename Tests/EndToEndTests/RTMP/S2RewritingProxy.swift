import NIOCore
import RTMP
import Synchronization
import TestSupport

/// A TCP proxy on 127.0.0.1 in front of an RTMP server that replaces S2 (bytes 1537..<3073 of what the
/// server sends) with random bytes, as a server answering with the digest (FP9) handshake looks to a
/// client that sent a plain C1: its S2 is no echo of C1. Everything else passes unchanged.
final class S2RewritingProxy: Sendable {
    private static let s2Range = (1 + RTMPHandshake.packetSize)..<(1 + 2 * RTMPHandshake.packetSize)
    private let relay: TCPRelay
    private let rewrites = Counter()

    var port: Int { relay.port }

    init(to targetPort: Int) throws {
        let rewrites = rewrites
        relay = try TCPRelay(to: targetPort) { _, _ in
            (toServer: .passThrough, toClient: TCPRelay.Direction(rewrite: { bytes, start in
                guard start < Self.s2Range.upperBound else { return }
                let count = bytes.readableBytes
                let first = max(start, Self.s2Range.lowerBound), end = min(start + count, Self.s2Range.upperBound)
                for position in first..<max(first, end) {
                    bytes.setInteger(UInt8.random(in: 0...255), at: bytes.readerIndex + position - start)
                }
                if start + count >= Self.s2Range.upperBound { rewrites.value.add(1, ordering: .relaxed) }
            }))
        }
    }

    /// How many connections had their S2 replaced (the whole of it went through the proxy).
    var rewrittenHandshakes: Int { rewrites.value.load(ordering: .relaxed) }

    func close() { relay.close() }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
