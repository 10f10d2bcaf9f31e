import NIOCore
import RTMP
import Synchronization

/// A TCP proxy on 127.0.0.1 that, on `stall()`, stops forwarding in both directions on every
/// connection open at that moment without closing either side: the sender's socket stays open
/// and writable until the buffers fill, the server sees a publisher that went quiet. Connections
/// made after the stall forward normally (a fresh path to the same server).
///
/// It also reads both sides as RTMP (after the handshake) and counts the Acknowledgements it
/// forwarded, so that a test can stall a path on which the server's own acknowledgements have
/// reached the client: livepush then judges the connection by them, not by TCP_INFO's fallback.
/// It notes when the server closed a frozen connection (let go of that session) and, per
/// connection, whether the server accepted or refused the publish and when the first video went
/// through (``Publish``).
public final class StallingProxy: Sendable {
    /// One connection through the proxy, as the server answered its publish.
    public struct Publish: Sendable {
        public var opened: ContinuousClock.Instant
        /// The server's `onStatus` to the publish: `NetStream.Publish.Start`, `…BadName`, … (nil: none yet).
        public var statusCode: String?
        public var answered: ContinuousClock.Instant?
        /// The first video message forwarded to the server.
        public var firstVideo: ContinuousClock.Instant?

        public var isAccepted: Bool { statusCode == RTMPStatus.Code.publishStart }
        public var isRefused: Bool { statusCode.map { $0 != RTMPStatus.Code.publishStart } ?? false }
    }

    private let relay: TCPRelay
    private let state: ProxyState

    public var port: Int { relay.port }

    /// `receiveBufferBytes`: SO_RCVBUF of the client's side (a small one fills soon once frozen: a black hole).
    public init(to targetPort: Int, receiveBufferBytes: Int? = nil) throws {
        let state = ProxyState()
        self.state = state
        relay = try TCPRelay(to: targetPort, receiveBufferBytes: receiveBufferBytes) { client, server in
            let (generation, index) = state.open(client, server)
            let frozen: @Sendable () -> Bool = { state.isFrozen(generation) }
            server.closeFuture.whenComplete { _ in state.serverClosed(generation: generation) }
            let fromServer = RTMPMessageWatch { message in
                if message.type == .acknowledgement { state.acknowledgementForwarded() }
                if message.type == .commandAMF0, case .onStatus(let status)? = try? RTMPServerCommand(message) {
                    state.answered(index, code: status.code)
                }
            }
            let toServer = RTMPMessageWatch { message in
                if message.type == .video { state.videoForwarded(index) }
            }
            return (toServer: TCPRelay.Direction(forwarded: toServer.forwarded, isFrozen: frozen),
                    toClient: TCPRelay.Direction(forwarded: fromServer.forwarded, isFrozen: frozen))
        }
    }

    /// Freezes every connection open now; a read already under way is dropped, never forwarded.
    public func stall() { state.freeze() }

    /// Connections made so far (each a client and its server side).
    public var connectionCount: Int { state.connectionCount }

    /// RTMP Acknowledgement messages the server sent that the proxy passed on to the client (all
    /// connections): each was written to the client's socket before it was counted.
    public var acknowledgementsForwarded: Int { state.acknowledgementsForwarded }

    /// When the server first closed a connection frozen by ``stall()``: it let go of that session
    /// (nginx-rtmp's `drop_idle_publisher`). Nil until then.
    public var frozenSessionDropped: ContinuousClock.Instant? { state.frozenSessionDropped }

    /// Every connection so far, in the order they were opened.
    public var publishes: [Publish] { state.publishes }

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
        var publishes: [StallingProxy.Publish] = []
        var frozenSessionDropped: ContinuousClock.Instant?
    }
    private let inner = Mutex(Inner())

    func open(_ client: Channel, _ server: Channel) -> (generation: Int, index: Int) {
        inner.withLock {
            $0.channels += [client, server]
            $0.publishes.append(.init(opened: .now))
            return ($0.generation, $0.publishes.count - 1)
        }
    }
    func isFrozen(_ generation: Int) -> Bool { inner.withLock { $0.generation > generation } }
    func freeze() { inner.withLock { $0.generation += 1 } }
    var connectionCount: Int { inner.withLock { $0.channels.count / 2 } }
    func acknowledgementForwarded() { inner.withLock { $0.acknowledgementsForwarded += 1 } }
    var acknowledgementsForwarded: Int { inner.withLock { $0.acknowledgementsForwarded } }
    func serverClosed(generation: Int) {
        let now = ContinuousClock.now
        inner.withLock { if $0.generation > generation, $0.frozenSessionDropped == nil { $0.frozenSessionDropped = now } }
    }
    var frozenSessionDropped: ContinuousClock.Instant? { inner.withLock { $0.frozenSessionDropped } }
    func answered(_ index: Int, code: String) {
        let now = ContinuousClock.now
        inner.withLock { state in
            guard state.publishes[index].statusCode == nil else { return }
            state.publishes[index].statusCode = code
            state.publishes[index].answered = now
        }
    }
    func videoForwarded(_ index: Int) {
        let now = ContinuousClock.now
        inner.withLock { if $0.publishes[index].firstVideo == nil { $0.publishes[index].firstVideo = now } }
    }
    var publishes: [StallingProxy.Publish] { inner.withLock { $0.publishes } }
    func takeChannels() -> [Channel] { inner.withLock { state in defer { state.channels = [] }; return state.channels } }
}

/// One direction of a connection read as RTMP: skips the handshake (C0+C1+C2 or S0+S1+S2),
/// reassembles the messages (following Set Chunk Size) and calls `message` for each. Used on the
/// relay's event loop only. A stream it cannot parse is no longer watched (the relay goes on).
private final class RTMPMessageWatch {
    private var handshakeLeft = 1 + 2 * RTMPHandshake.packetSize
    private var pending = ByteBuffer()
    private var reader: RTMPChunkReader? = RTMPChunkReader()
    private let message: (RTMPMessage) -> Void

    init(message: @escaping (RTMPMessage) -> Void) {
        self.message = message
    }

    func forwarded(_ bytes: ByteBuffer) {
        guard reader != nil else { return }
        var bytes = bytes
        let skipped = min(handshakeLeft, bytes.readableBytes)
        bytes.moveReaderIndex(forwardBy: skipped)
        handshakeLeft -= skipped
        pending.writeBuffer(&bytes)
        do {
            while let decoded = try reader?.decode(buffer: &pending) {
                message(decoded)
            }
        } catch {
            reader = nil
        }
        pending.discardReadBytes()
    }
}
