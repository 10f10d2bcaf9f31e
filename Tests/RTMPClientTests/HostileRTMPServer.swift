import NIOCore
import NIOPosix
import RTMP
import Synchronization

/// A misbehaving RTMP server on 127.0.0.1 for tests: each `Behaviour` breaks the protocol one way.
/// It counts connections, so tests can see whether the client came back.
final class HostileRTMPServer: Sendable {
    enum Behaviour: Sendable {
        /// Closes as soon as C0/C1 arrive.
        case closeDuringHandshake
        /// Answers the handshake with random bytes (wrong version).
        case garbage
        /// Accepts and never says anything.
        case silent
        /// Completes the handshake, then announces a 2^31-1 byte chunk size.
        case enormousChunkSize
        /// Completes the handshake and never answers connect.
        case neverAnswersConnect
        /// Answers connect and createStream, then refuses publish with this status code.
        case rejectPublish(code: String)
    }

    let port: Int
    private let channel: Channel
    private let box: CounterBox

    init(_ behaviour: Behaviour) throws {
        let box = CounterBox()
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                box.increment()
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(HostileHandler(behaviour: behaviour))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
        self.box = box
    }

    var connectionCount: Int { box.value }

    func close() { try? channel.close().wait() }

    deinit { channel.close(promise: nil) }
}

private final class CounterBox: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// One connection's worth of bad behaviour.
private final class HostileHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let behaviour: HostileRTMPServer.Behaviour
    private var received = ByteBuffer()
    private var handshakeDone = false
    private var reader = RTMPChunkReader()
    private var writer = RTMPChunkWriter()

    init(behaviour: HostileRTMPServer.Behaviour) { self.behaviour = behaviour }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        switch behaviour {
        case .closeDuringHandshake:
            context.close(promise: nil)
        case .garbage:
            var junk = context.channel.allocator.buffer(capacity: 3073)
            junk.writeInteger(UInt8(0x06))
            for _ in 0..<3072 { junk.writeInteger(UInt8.random(in: 0...255)) }
            context.writeAndFlush(wrapOutboundOut(junk), promise: nil)
        case .silent:
            break
        default:
            serve(context: context)
        }
    }

    /// S0+S1+S2 (S2 echoes C1), then the behaviour's reaction to commands.
    private func serve(context: ChannelHandlerContext) {
        if !handshakeDone {
            guard received.readableBytes >= 1 + RTMPHandshake.packetSize, let c0c1 = received.readSlice(length: 1 + RTMPHandshake.packetSize) else { return }
            var reply = context.channel.allocator.buffer(capacity: 1 + 2 * RTMPHandshake.packetSize)
            reply.writeInteger(RTMPHandshake.version)
            reply.writeRepeatingByte(0, count: RTMPHandshake.packetSize)
            reply.writeImmutableBuffer(c0c1.getSlice(at: c0c1.readerIndex + 1, length: RTMPHandshake.packetSize) ?? ByteBuffer())
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            handshakeDone = true
            if case .enormousChunkSize = behaviour {
                send([RTMPMessage(RTMPSetChunkSize(chunkSize: 0x7FFF_FFFF))], context: context)
            }
        }
        if !c2Consumed {
            guard received.readableBytes >= RTMPHandshake.packetSize else { return }
            received.moveReaderIndex(forwardBy: RTMPHandshake.packetSize)
            c2Consumed = true
        }
        while let message = try? reader.decode(buffer: &received) {
            guard case .rejectPublish(let code) = behaviour, let command = try? RTMPCommand(message) else { continue }
            switch command.name {
            case "connect":
                send([result(command.transactionID, information: RTMPStatus(level: .status, code: RTMPStatus.Code.connectSuccess).infoObject)], context: context)
            case "createStream":
                send([result(command.transactionID, information: .number(1))], context: context)
            case "publish":
                let status = RTMPStatus(level: .error, code: code, description: "test server refuses this key")
                let reply = RTMPCommand(name: "onStatus", transactionID: 0, arguments: [status.infoObject])
                send([RTMPMessage(reply, chunkStreamID: RTMPChunkStreamID.stream, messageStreamID: 1)], context: context)
            default:
                continue
            }
        }
    }

    private var c2Consumed = false

    private func result(_ transactionID: Double, information: AMF0Value) -> RTMPMessage {
        RTMPMessage(RTMPCommand(name: "_result", transactionID: transactionID, arguments: [information]), chunkStreamID: RTMPChunkStreamID.command)
    }

    private func send(_ messages: [RTMPMessage], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: 256)
        for message in messages { try? writer.write(message, into: &buffer) }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }
}
