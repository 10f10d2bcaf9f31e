import Codec
import NIOCore
import RTP
import RTPOutput
import SRTP
import WebRTC

/// The media half of one WebRTC peer connection, after ICE and DTLS are done: the shared
/// ``RTPSendSession`` (what plain RTP sends through too), on the SSRCs, payload types and header
/// extensions the ``NegotiatedSession`` settled, under the peer's SRTP keys, starting at a key frame.
public typealias WebRTCMediaSender = RTPSendSession

extension RTPSendSession {
    /// - Parameters:
    ///   - session: what offer/answer settled (payload types, SSRCs, RTX, extension ids).
    ///   - outbound: SRTP keyed with our DTLS-exported key (protects RTP and RTCP we send).
    ///   - inbound: SRTP keyed with the peer's key (authenticates the SRTCP it sends).
    ///   - cname: the CNAME our SDP announced (RFC 7022: random per session).
    ///   - transmit: sends one datagram to the peer's selected address (every route goes there).
    public convenience init(session: NegotiatedSession, outbound: SRTPSession, inbound: SRTPSession, cname: String,
                            configuration: Configuration = Configuration(), allocator: ByteBufferAllocator = ByteBufferAllocator(),
                            transmit: @escaping (ByteBuffer) -> Void) throws(RTPError) {
        var generator = SystemRandomNumberGenerator()
        let limiter = KeyFrameRequestLimiter(minimumIntervalNanos: configuration.keyFrameRequestIntervalNanos)
        var video: RTPSenderSession<H264Payloader>?, audio: RTPSenderSession<OpusPayloader>?, rtx: RTXPacketizer?
        if let negotiated = session.video {
            let packetizer = try RTPPacketizer(
                ssrc: negotiated.ssrc, payloadType: negotiated.payloadType,
                payloader: try H264Payloader(maxPayloadSize: configuration.maxPayloadSize, allocator: allocator), using: &generator)
            video = RTPSenderSession(packetizer: packetizer, cname: cname, historyCapacity: configuration.historyCapacity, limiter: limiter)
            if let payloadType = negotiated.rtxPayloadType, let ssrc = negotiated.rtxSSRC {
                rtx = try RTXPacketizer(ssrc: ssrc, payloadType: payloadType, sequencer: RTPSequencer(using: &generator), allocator: allocator)
            }
        }
        if let negotiated = session.audio {
            let packetizer = try RTPPacketizer(
                ssrc: negotiated.ssrc, payloadType: negotiated.payloadType,
                payloader: OpusPayloader(maxPayloadSize: configuration.maxPayloadSize), using: &generator)
            audio = RTPSenderSession(packetizer: packetizer, cname: cname, historyCapacity: 1, limiter: limiter)
        }
        let extensions = HeaderExtensionIDs(videoTransportWideCC: session.video?.transportWideCCExtensionID,
                                            audioTransportWideCC: session.audio?.transportWideCCExtensionID,
                                            videoOrientation: session.video?.videoOrientationExtensionID,
                                            videoCaptureTime: session.video?.captureTimeExtensionID,
                                            videoPlayoutDelay: session.video?.playoutDelayExtensionID)
        try self.init(video: video, audio: audio, rtx: rtx, outbound: outbound, inbound: inbound, extensions: extensions,
                      configuration: configuration, allocator: allocator) { datagram, _ in transmit(datagram) }
    }
}
