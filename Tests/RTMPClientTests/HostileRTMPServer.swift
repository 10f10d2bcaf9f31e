import NIOCore
import NIOPosix
import NIOSSL
import RTMP
import Synchronization
import TestSupport

/// A misbehaving RTMP server on 127.0.0.1 for tests: each `Behaviour` breaks the protocol one way, or
/// (`publishes`) completes a publish with a quirk only a hostile or unusual server has.
/// It records connections, what the client sent and how many bytes it sent the client.
final class HostileRTMPServer: Sendable {
    enum Behaviour: Sendable {
        /// Closes as soon as C0/C1 arrive.
        case closeDuringHandshake
        /// Answers the handshake with random bytes (wrong version).
        case garbage
        /// Accepts and never says anything.
        case silent
        /// Completes the handshake and never answers connect.
        case neverAnswersConnect
        /// Answers connect and createStream, then refuses publish with this status code.
        case rejectPublish(code: String)
        /// Answers every step of a publish, with `Quirk` on top.
        case publishes(Quirk)
    }

    let port: Int
    private let channel: Channel
    let record: Record

    /// `receiveBufferBytes`: SO_RCVBUF of the connections (a small one fills soon once the server stops reading).
    /// `tls`: speaks rtmps with the authority's server certificate (for localhost and 127.0.0.1).
    init(_ behaviour: Behaviour, receiveBufferBytes: Int? = nil, tls: TestCertificateAuthority? = nil) throws {
        let record = Record()
        let sslContext = try tls.map { authority in
            try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(authority.serverCertificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: authority.serverKeyPath, format: .pem))))
        }
        var bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        if let receiveBufferBytes { bootstrap = bootstrap.serverChannelOption(.socketOption(.so_rcvbuf), value: .init(receiveBufferBytes)) }
        channel = try bootstrap
            .childChannelInitializer { child in
                record.connected()
                return child.eventLoop.makeCompletedFuture {
                    if let sslContext { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext)) }
                    try child.pipeline.syncOperations.addHandler(HostileHandler(behaviour: behaviour, record: record))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
        self.record = record
    }

    var connectionCount: Int { record.connections }

    func close() { try? channel.close().wait() }

    deinit { channel.close(promise: nil) }
}

extension HostileRTMPServer {
    /// What the server saw, shared with the connections' event loops.
    final class Record: Sendable {
        private struct State {
            var connections = 0
            var bytesSent = 0
            var messages: [RTMPMessage] = []
            var acknowledgementsSent = 0
        }

        private let state = Mutex(State())

        func connected() { state.withLock { $0.connections += 1 } }
        func sent(_ count: Int) { state.withLock { $0.bytesSent += count } }
        func received(_ message: RTMPMessage) { state.withLock { $0.messages.append(message) } }
        func acknowledged() { state.withLock { $0.acknowledgementsSent += 1 } }

        var connections: Int { state.withLock { $0.connections } }
        /// Every byte written to the client, handshake included (what its Acknowledgements count).
        var bytesSent: Int { state.withLock { $0.bytesSent } }
        /// The client's messages, in order, across connections.
        var messages: [RTMPMessage] { state.withLock { $0.messages } }
        /// Acknowledgements the server sent (`acknowledgesEvery` quirk), across connections.
        var acknowledgementsSent: Int { state.withLock { $0.acknowledgementsSent } }
    }
}

/// One connection's worth of bad behaviour.
final class HostileHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let behaviour: HostileRTMPServer.Behaviour
    let record: HostileRTMPServer.Record
    private var received = ByteBuffer()
    private var handshakeDone = false
    private var c2Consumed = false
    private var reader = RTMPChunkReader()
    var writer = RTMPChunkWriter()
    /// Every byte the client sent, handshake included.
    private var bytesRead = 0
    /// What the `acknowledgesEvery` quirk has done on this connection.
    var sparseAcknowledgements = SparseAcknowledgements()

    init(behaviour: HostileRTMPServer.Behaviour, record: HostileRTMPServer.Record) {
        self.behaviour = behaviour
        self.record = record
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        bytesRead += bytes.readableBytes
        received.writeBuffer(&bytes)
        if case .publishes(.acknowledgesEvery(let step, let ending)) = behaviour {
            acknowledgeSparsely(every: step, then: ending, bytesAfterHandshake: bytesRead - 2 * RTMPHandshake.packetSize - 1, context: context)
        }
        switch behaviour {
        case .closeDuringHandshake:
            context.close(promise: nil)
        case .garbage:
            var junk = context.channel.allocator.buffer(capacity: 3073)
            junk.writeInteger(UInt8(0x06))
            for _ in 0..<3072 { junk.writeInteger(UInt8.random(in: 0...255)) }
            write(junk, context: context)
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
            write(reply, context: context)
            handshakeDone = true
            if case .publishes(let quirk) = behaviour {
                write(quirk.afterHandshake(self), context: context)
            }
        }
        if !c2Consumed {
            guard received.readableBytes >= RTMPHandshake.packetSize else { return }
            received.moveReaderIndex(forwardBy: RTMPHandshake.packetSize)
            c2Consumed = true
        }
        while let message = try? reader.decode(buffer: &received) {
            record.received(message)
            guard let command = try? RTMPCommand(message) else { continue }
            switch behaviour {
            case .rejectPublish(let code):
                write(rejecting(command, code: code), context: context)
            case .publishes(let quirk):
                write(quirk.answer(to: command, handler: self), context: context)
            default:
                continue
            }
        }
    }

    private func rejecting(_ command: RTMPCommand, code: String) -> ByteBuffer {
        switch command.name {
        case "connect":
            return chunks([result(command.transactionID, information: RTMPStatus(level: .status, code: RTMPStatus.Code.connectSuccess).infoObject)])
        case "createStream":
            return chunks([result(command.transactionID, information: .number(1))])
        case "publish":
            return chunks([status(RTMPStatus(level: .error, code: code, description: "test server refuses this key"))])
        default:
            return ByteBuffer()
        }
    }

    func result(_ transactionID: Double, commandObject: AMF0Value = .null, information: AMF0Value) -> RTMPMessage {
        RTMPMessage(
            RTMPCommand(name: "_result", transactionID: transactionID, commandObject: commandObject, arguments: [information]),
            chunkStreamID: RTMPChunkStreamID.command)
    }

    /// onStatus on message stream 1, as servers send it about the published stream.
    func status(_ status: RTMPStatus) -> RTMPMessage {
        RTMPMessage(
            RTMPCommand(name: "onStatus", transactionID: 0, arguments: [status.infoObject]),
            chunkStreamID: RTMPChunkStreamID.stream, messageStreamID: 1)
    }

    /// Chunks `messages` with this connection's writer, which follows its own Set Chunk Size messages.
    func chunks(_ messages: [RTMPMessage]) -> ByteBuffer {
        var buffer = ByteBuffer()
        for message in messages { try? writer.write(message, into: &buffer) }
        return buffer
    }

    func write(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard bytes.readableBytes > 0 else { return }
        record.sent(bytes.readableBytes)
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }
}
