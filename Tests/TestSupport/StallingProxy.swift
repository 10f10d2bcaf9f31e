import NIOCore
import RTMP
import Synchronization

/// A TCP proxy on 127.0.0.1 that, on `stall()`, stops forwarding in both directions on every
/// connection open at that moment without closing either side: the sender's socket stays open
/// and writable until the buffers fill, the server sees a publisher that went quiet. Connections
/// made after the stall forward normally (a fresh path to the same server).
///
/// It also reads the server's side as RTMP (after S0+S1+S2) and counts the Acknowledgements it
/// forwarded, so that a test can stall a path on which the server's own acknowledgements have
/// reached the client: livepush then judges the connection by them, not by TCP_INFO's fallback.
public final class StallingProxy: Sendable {
    private let relay: TCPRelay
    private let state: ProxyState

    public var port: Int { relay.port }

    /// `receiveBufferBytes`: SO_RCVBUF of the client's side (a small one fills soon once frozen: a black hole).
    public init(to targetPort: Int, receiveBufferBytes: Int? = nil) throws {
        let state = ProxyState()
        self.state = state
        relay = try TCPRelay(to: targetPort, receiveBufferBytes: receiveBufferBytes) { client, server in
            let generation = state.open(client, server)
            let frozen: @Sendable () -> Bool = { state.isFrozen(generation) }
            let watch = RTMPServerWatch { state.acknowledgementForwarded() }
            return (toServer: TCPRelay.Direction(isFrozen: frozen),
                    toClient: TCPRelay.Direction(forwarded: watch.forwarded, isFrozen: frozen))
        }
    }

    /// Freezes every connection open now; a read already under way is dropped, never forwarded.
    public func stall() { state.freeze() }

    /// Connections made so far (each a client and its server side).
    public var connectionCount: Int { state.connectionCount }

    /// RTMP Acknowledgement messages the server sent that the proxy passed on to the client (all
    /// connections): each was written to the client's socket before it was counted.
    public var acknowledgementsForwarded: Int { state.acknowledgementsForwarded }

    /// Closes the listener and every connection, frozen or not.
    public func close() {
        relay.close()
        for channel in state.takeChannels() { try? channel.close().wait() }
    }
}

/// Which connections are frozen (those opened before the last `freeze`), and every channel to close.
private final class ProxyState: Sendable {
    private struct Inner {
        var generation = 0
        var channels: [Channel] = []
        var acknowledgementsForwarded = 0
    }
    private let inner = Mutex(Inner())

    func open(_ client: Channel, _ server: Channel) -> Int {
        inner.withLock { $0.channels += [client, server]; return $0.generation }
    }
    func isFrozen(_ generation: Int) -> Bool { inner.withLock { $0.generation > generation } }
    func freeze() { inner.withLock { $0.generation += 1 } }
    var connectionCount: Int { inner.withLock { $0.channels.count / 2 } }
    func acknowledgementForwarded() { inner.withLock { $0.acknowledgementsForwarded += 1 } }
    var acknowledgementsForwarded: Int { inner.withLock { $0.acknowledgementsForwarded } }
    func takeChannels() -> [Channel] { inner.withLock { state in defer { state.channels = [] }; return state.channels } }
}

/// The server's side of one connection read as RTMP: skips S0+S1+S2, reassembles the messages
/// (following Set Chunk Size) and calls `acknowledgement` for each Acknowledgement. Used on the
/// relay's event loop only. A stream it cannot parse is no longer watched (the relay goes on).
private final class RTMPServerWatch {
    private var handshakeLeft = 1 + 2 * RTMPHandshake.packetSize
    private var pending = ByteBuffer()
    private var reader: RTMPChunkReader? = RTMPChunkReader()
    private let acknowledgement: () -> Void

    init(acknowledgement: @escaping () -> Void) {
        self.acknowledgement = acknowledgement
    }

    func forwarded(_ bytes: ByteBuffer) {
        guard reader != nil else { return }
        var bytes = bytes
        let skipped = min(handshakeLeft, bytes.readableBytes)
        bytes.moveReaderIndex(forwardBy: skipped)
        handshakeLeft -= skipped
        pending.writeBuffer(&bytes)
        do {
            while let message = try reader?.decode(buffer: &pending) {
                if message.type == .acknowledgement { acknowledgement() }
            }
        } catch {
            reader = nil
        }
        pending.discardReadBytes()
    }
}
