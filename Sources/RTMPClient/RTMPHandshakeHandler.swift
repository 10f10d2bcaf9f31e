import Logging
import NIOCore
import RTMP

/// Fired inbound once the handshake is over, before the bytes that followed S2.
struct RTMPHandshakeCompleted: Sendable {}

/// Runs the client handshake (`RTMPHandshake`) on a fresh connection, then gets out of the way:
/// it forwards whatever the server sent after S2 to the chunk reader and removes itself, so from then on
/// bytes go straight to `ByteToMessageHandler(RTMPChunkReader)`.
final class RTMPHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var handshake: RTMPHandshake
    private var started = false
    private let startNanos = NIODeadline.now().uptimeNanoseconds
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
        var random = SystemRandomNumberGenerator()
        handshake = RTMPHandshake(timestamp: 0, random: &random)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        let now = UInt32(truncatingIfNeeded: (NIODeadline.now().uptimeNanoseconds - startNanos) / 1_000_000)
        perform(handshake.handle(.received(bytes, nowMilliseconds: now)), context: context)
    }

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        perform(handshake.handle(.start), context: context)
    }

    private func perform(_ action: RTMPHandshake.Action, context: ChannelHandlerContext) {
        switch action {
        case .wait:
            break
        case .send(let bytes):
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        case .complete(let c2, let remainder, let s2EchoedC1):
            if !s2EchoedC1 { logger.debug("the server's S2 does not echo our C1 (a digest handshake?); carrying on, as FFmpeg and librtmp do") }
            if let c2 { context.writeAndFlush(wrapOutboundOut(c2), promise: nil) }
            context.fireUserInboundEventTriggered(RTMPHandshakeCompleted())
            if remainder.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(remainder)) }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        case .fail(let error):
            context.fireErrorCaught(RTMPClientError.protocolError(error))
        }
    }
}

/// Counts bytes as they arrive (chunk headers included) for RTMP acknowledgements (§5.4.3),
/// reporting each read inbound as `RTMPBytesReceived` ahead of the bytes themselves.
final class RTMPByteCounter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(RTMPBytesReceived(count: unwrapInboundIn(data).readableBytes))
        context.fireChannelRead(data)
    }
}

struct RTMPBytesReceived: Sendable {
    var count: Int
}
