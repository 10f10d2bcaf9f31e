import NIOCore
import NIOPosix
import RTMP
import Synchronization

/// An RTMP server on 127.0.0.1 that takes every publish and records, per connection, the name it
/// published, the video tags it received (stream timestamp, keyframe, sequence header, multitrack
/// track, size) and whether the connection has closed. It acknowledges what it reads, as nginx-rtmp
/// does, so the publisher sees its media delivered, and keeps no media: a sink as cheap for one
/// connection of three tracks as for three connections (the multitrack benchmark's receiver).
///
/// With `announcesMultitrack` its `connect` result says it takes multitrack video (`capsEx`, enhanced
/// RTMP v2), as a multitrack ingest does; livepush sends renditions as tracks only to such a server.
///
/// With a ``ReconnectRequest`` it asks the publisher to move mid-stream (enhanced RTMP v2's
/// `NetConnection.Connect.ReconnectRequest`), once its first connection has received a number of coded
/// frames: judged by the stream, not by the clock. The new connection's publish is then answered only
/// once the first connection has received ``ReconnectRequest/publishAnswerHeldFrames`` more frames, as a
/// distant server would answer late: the old connection visibly carries media while the new one comes up.
public final class PublishRecordingRTMPServer: Sendable {
    public struct ReconnectRequest: Sendable {
        /// Where the request points.
        public enum Target: Sendable {
            /// No tcUrl: reconnect to the same place.
            case sameAddress
            /// tcUrl `rtmp://HOST:secondPort/live`: "a new address" on this server's ``secondPort``.
            case secondPort(host: String)
        }

        /// Frames the first connection receives after the request before a new connection's publish is answered.
        public static let publishAnswerHeldFrames = 10

        /// Coded video frames the first connection receives before the request goes out.
        public var afterFrames: Int
        public var target: Target

        public init(afterFrames: Int, target: Target = .sameAddress) {
            self.afterFrames = afterFrames
            self.target = target
        }
    }

    public struct VideoTag: Sendable, Equatable {
        /// The RTMP message timestamp (the stream's DTS in milliseconds).
        public var timestamp: UInt32
        /// Where it came in among every event the server saw, across connections (``Connection``).
        public var order: Int
        public var isKeyFrame: Bool
        public var isSequenceHeader: Bool
        /// The multitrack track id; nil on an ordinary (single-track) tag.
        public var trackID: UInt8?
        /// The tag's size: the RTMP message payload, FLV tag header excluded.
        public var bytes: Int
    }

    /// One connection's record. The `…Order` fields place events across connections: each event the
    /// server sees gets the next number, so a test can tell what happened while what was still open.
    public struct Connection: Sendable {
        /// The server port it came in on (``port`` or ``secondPort``).
        public var localPort: Int
        /// The stream name its publish command gave; nil until it came.
        public var publishedName: String?
        public var videoTags: [VideoTag] = []
        /// When the publish command came in; nil if it never did.
        public var publishedOrder: Int?
        /// When the ReconnectRequest went out on this connection; nil if it did not.
        public var reconnectRequestedOrder: Int?
        /// When the connection closed; nil while it is open.
        public var closedOrder: Int?
        /// The video tags that carry pictures (not sequence headers).
        public var codedFrames: [VideoTag] { videoTags.filter { !$0.isSequenceHeader } }
    }

    /// The first listening port; ``secondPort`` is "a new address" for a ReconnectRequest's tcUrl.
    public var port: Int { ports[0] }
    public var secondPort: Int { ports[1] }
    private let ports: [Int]
    private let channels: [Channel]
    private let record: PublishLog

    public init(reconnectRequest: ReconnectRequest? = nil, announcesMultitrack: Bool = false) throws {
        let record = PublishLog()
        record.withLock { $0.announcesMultitrack = announcesMultitrack }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                let index = record.withLock { record in
                    record.connections.append(Connection(localPort: child.localAddress?.port ?? 0))
                    return record.connections.count - 1
                }
                let request = record.withLock { index == 0 ? $0.reconnectRequest : nil }
                return child.eventLoop.makeCompletedFuture {
                    let handler = PublishRecordingHandler(index: index, record: record, reconnectRequest: request)
                    try child.pipeline.syncOperations.addHandler(handler)
                }
            }
        channels = try (0..<2).map { _ in try bootstrap.bind(host: "127.0.0.1", port: 0).wait() }
        ports = channels.map { $0.localAddress?.port ?? 0 }
        record.withLock { [ports] in
            $0.reconnectRequest = reconnectRequest.map { request in
                switch request.target {
                case .sameAddress: (request.afterFrames, nil)
                case .secondPort(let host): (request.afterFrames, "rtmp://\(host):\(ports[1])/live")
                }
            }
        }
        self.record = record
    }

    /// Every connection so far, in the order they were accepted.
    public var connections: [Connection] { record.withLock { $0.connections } }

    public func close() {
        for channel in channels { try? channel.close().wait() }
    }

    deinit {
        for channel in channels { channel.close(promise: nil) }
    }
}

/// What every connection saw, and the running count that orders it; shared with the connections'
/// event loops.
private final class PublishLog: Sendable {
    struct State {
        var connections: [PublishRecordingRTMPServer.Connection] = []
        /// The first connection's ReconnectRequest: after how many coded frames, and its tcUrl.
        var reconnectRequest: (afterFrames: Int, tcURL: String?)?
        /// A new connection's Publish.Start, held back until the first connection has this many coded frames.
        var heldPublishAnswer: (untilFrames: Int, send: @Sendable () -> Void)?
        /// Whether connect's `_result` announces multitrack in `capsEx`.
        var announcesMultitrack = false
        private var events = 0

        /// The next event's number.
        mutating func next() -> Int {
            events += 1
            return events
        }
    }

    private let state = Mutex(State())

    func withLock<T: Sendable>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }
}

/// One connection: the handshake (S2 echoes C1), plain answers to connect, createStream and publish,
/// Acknowledgements, and the record of video tags.
private final class PublishRecordingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let acknowledgementWindow = 64 * 1024

    private let index: Int
    private let record: PublishLog
    private var reconnectRequest: (afterFrames: Int, tcURL: String?)?
    private var received = ByteBuffer()
    private var handshakeDone = false
    private var c2Consumed = false
    private var reader = RTMPChunkReader()
    private var writer = RTMPChunkWriter()
    private var bytesAfterHandshake = 0
    private var acknowledged = 0
    private var codedFrames = 0

    init(index: Int, record: PublishLog, reconnectRequest: (afterFrames: Int, tcURL: String?)?) {
        self.index = index
        self.record = record
        self.reconnectRequest = reconnectRequest
    }

    func channelInactive(context: ChannelHandlerContext) {
        record.withLock { $0.connections[index].closedOrder = $0.next() }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if c2Consumed { bytesAfterHandshake += bytes.readableBytes }
        received.writeBuffer(&bytes)
        if !handshakeDone {
            guard let c0c1 = received.readSlice(length: 1 + RTMPHandshake.packetSize) else { return }
            var reply = context.channel.allocator.buffer(capacity: 1 + 2 * RTMPHandshake.packetSize)
            reply.writeInteger(RTMPHandshake.version)
            reply.writeRepeatingByte(0, count: RTMPHandshake.packetSize)
            reply.writeImmutableBuffer(c0c1.getSlice(at: c0c1.readerIndex + 1, length: RTMPHandshake.packetSize) ?? ByteBuffer())
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
            handshakeDone = true
        }
        if !c2Consumed {
            guard received.readableBytes >= RTMPHandshake.packetSize else { return }
            received.moveReaderIndex(forwardBy: RTMPHandshake.packetSize)
            c2Consumed = true
            bytesAfterHandshake = received.readableBytes
        }
        var replies: [RTMPMessage] = []
        while let message = try? reader.decode(buffer: &received) {
            replies += answer(message, context: context)
        }
        if bytesAfterHandshake - acknowledged >= Self.acknowledgementWindow {
            acknowledged = bytesAfterHandshake
            replies.append(RTMPMessage(RTMPAcknowledgement(sequenceNumber: UInt32(truncatingIfNeeded: bytesAfterHandshake))))
        }
        send(replies, context: context)
    }

    private func send(_ messages: [RTMPMessage], context: ChannelHandlerContext) {
        guard !messages.isEmpty else { return }
        var buffer = context.channel.allocator.buffer(capacity: 256)
        for message in messages { try? writer.write(message, into: &buffer) }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    private func answer(_ message: RTMPMessage, context: ChannelHandlerContext) -> [RTMPMessage] {
        if message.type == .video {
            return recordVideo(message)
        }
        guard let command = try? RTMPCommand(message) else { return [] }
        switch command.name {
        case "connect":
            let success = RTMPStatus(level: .status, code: RTMPStatus.Code.connectSuccess, description: "Connection succeeded.")
            var properties: AMF0Object = ["fmsVer": .string("FMS/3,0,1,123"), "capabilities": .number(31)]
            if record.withLock({ $0.announcesMultitrack }) {
                properties.append("capsEx", .number(Double(RTMPConnectParameters.ExtendedCapabilities.multitrack.rawValue)))
            }
            return [RTMPMessage(RTMPCommand(name: "_result", transactionID: command.transactionID, commandObject: .object(properties),
                                            arguments: [success.infoObject]), chunkStreamID: RTMPChunkStreamID.command)]
        case "createStream":
            return [RTMPMessage(RTMPCommand(name: "_result", transactionID: command.transactionID, arguments: [.number(1)]),
                                chunkStreamID: RTMPChunkStreamID.command)]
        case "publish":
            let answer = status(RTMPStatus(level: .status, code: RTMPStatus.Code.publishStart, description: "Start publishing"), messageStreamID: 1)
            let held = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let name: String? = if case .string(let name) = command.arguments.first { name } else { nil }
            let holds = record.withLock { log in
                log.connections[index].publishedOrder = log.next()
                log.connections[index].publishedName = name
                guard index > 0, let request = log.reconnectRequest else { return false }
                log.heldPublishAnswer = (request.afterFrames + PublishRecordingRTMPServer.ReconnectRequest.publishAnswerHeldFrames, {
                    held.eventLoop.execute { held.value.0.send([answer], context: held.value.1) }
                })
                return true
            }
            return holds ? [] : [answer]
        default:
            return []
        }
    }

    /// Records the tag; once enough coded frames came in, the ReconnectRequest (on the connection's stream 0).
    private func recordVideo(_ message: RTMPMessage) -> [RTMPMessage] {
        var payload = message.payload
        let bytes = payload.readableBytes
        guard let tag = try? FLVVideoTag(from: &payload) else { return [] }
        let isSequenceHeader = if case .sequenceStart = tag.packet { true } else { false }
        record.withLock {
            $0.connections[index].videoTags.append(.init(timestamp: message.timestamp, order: $0.next(), isKeyFrame: tag.frameType == .key,
                                                         isSequenceHeader: isSequenceHeader, trackID: tag.trackID, bytes: bytes))
        }
        if !isSequenceHeader { codedFrames += 1 }
        let release = record.withLock { log -> (@Sendable () -> Void)? in
            guard let held = log.heldPublishAnswer, codedFrames >= held.untilFrames else { return nil }
            log.heldPublishAnswer = nil
            return held.send
        }
        release?()
        guard let request = reconnectRequest, codedFrames >= request.afterFrames else { return [] }
        reconnectRequest = nil
        record.withLock { $0.connections[index].reconnectRequestedOrder = $0.next() }
        return [status(RTMPStatus(level: .status, code: RTMPStatus.Code.connectReconnectRequest, description: "please move",
                                  tcURL: request.tcURL), messageStreamID: 0)]
    }

    private func status(_ status: RTMPStatus, messageStreamID: UInt32) -> RTMPMessage {
        RTMPMessage(RTMPCommand(name: "onStatus", transactionID: 0, arguments: [status.infoObject]),
                    chunkStreamID: messageStreamID == 0 ? RTMPChunkStreamID.command : RTMPChunkStreamID.stream, messageStreamID: messageStreamID)
    }
}
