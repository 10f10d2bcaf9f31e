import Codec
import Foundation
import NIOCore
import NIOPosix
import Pipeline
import RTP
import SRTP
import Synchronization

/// Plain RTP or SRTP out to `rtp://HOST:PORT`: H.264 (RFC 6184) on PORT, RTCP on PORT + 1, with
/// a random SSRC, initial sequence number and timestamp offset, Sender Reports every second and
/// answers to NACK (retransmission), PLI/FIR (rate-limited key frame requests), RR and REMB.
///
/// Threading: the encoder thread only enqueues (``onEncodedFrame(_:)`` never blocks). Frames go to
/// the socket's event loop, which alone owns the sender state (``RTPSenderHandler``); at most
/// `queueCapacity` frames wait there, and beyond that frames are dropped, counted, and a key frame
/// is requested so receivers recover at the next IDR.
///
/// The SDP describing the stream needs the encoder's SPS/PPS, so `onSessionDescription` is called
/// (on the event loop) once the first frame carrying them is sent, and again if they change.
public final class RTPStreamOutput: StreamOutput {
    public let configuration: RTPOutputConfiguration
    public let ssrc: UInt32
    public let cname: String
    private let session: RTPSenderSession
    private let onSessionDescription: @Sendable (RTPSessionDescription) -> Void
    private let sessionID: UInt64
    private let started = Mutex<(sender: NIOLoopBound<RTPSenderHandler>, requestKeyFrame: @Sendable () -> Void)?>(nil)
    private let statistics = Mutex(RTPSenderStatistics())
    private let pendingFrames = Atomic<Int>(0)
    private let droppedFrames = Atomic<Int>(0)
    /// Set when a frame is dropped, cleared when a key frame goes out: one request per gap.
    private let awaitingKeyFrame = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    public init(configuration: RTPOutputConfiguration,
                onSessionDescription: @escaping @Sendable (RTPSessionDescription) -> Void = { _ in }) throws(RTPError) {
        var generator = SystemRandomNumberGenerator()
        ssrc = UInt32.random(in: .min ... .max, using: &generator)
        sessionID = UInt64.random(in: 1...UInt64(Int64.max), using: &generator)
        // RFC 7022: a random CNAME per stream, not user@host.
        cname = "livepush-" + String(UInt64.random(in: .min ... .max, using: &generator), radix: 16)
        let packetizer = try RTPPacketizer(
            ssrc: ssrc, payloadType: configuration.payloadType,
            payloader: try H264Payloader(maxPayloadSize: configuration.maxPayloadSize), using: &generator)
        session = RTPSenderSession(
            packetizer: packetizer, cname: cname, historyCapacity: configuration.historyCapacity,
            limiter: KeyFrameRequestLimiter(minimumIntervalNanos: configuration.keyFrameRequestIntervalNanos))
        self.configuration = configuration
        self.onSessionDescription = onSessionDescription
    }

    public var name: String { configuration.keyingMaterial == nil ? "\(configuration.destination)" : "s\(configuration.destination)" }

    public func start(requestKeyFrame: @escaping @Sendable () -> Void) async throws {
        let destination = configuration.destination
        let rtpAddress: SocketAddress, rtcpAddress: SocketAddress
        do {
            rtpAddress = try SocketAddress.makeAddressResolvingHost(destination.host, port: destination.port)
            rtcpAddress = try SocketAddress.makeAddressResolvingHost(destination.host, port: destination.rtcpPort)
        } catch {
            throw RTPOutputError.unresolvableHost(destination.host)
        }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let describe = describer(address: rtpAddress)
        let publish: @Sendable (RTPSenderStatistics) -> Void = { [weak self] latest in self?.statistics.withLock { $0 = latest } }
        let sender = try await loop.submit { [session, configuration] in
            NIOLoopBound(try RTPSenderHandler(
                session: session, configuration: configuration, rtpAddress: rtpAddress, rtcpAddress: rtcpAddress,
                requestKeyFrame: requestKeyFrame, describe: describe,
                publish: publish), eventLoop: loop)
        }.get()
        do {
            _ = try await DatagramBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(sender.value) }
                }
                .bind(to: Self.localAddress(for: rtpAddress)).get()
        } catch {
            throw RTPOutputError.socketFailed("\(error)")
        }
        started.withLock { $0 = (sender, requestKeyFrame) }
        // Receivers can decode from the first frame only if it is an IDR.
        requestKeyFrame()
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        guard !stopped.load(ordering: .relaxed), let (sender, requestKeyFrame) = started.withLock({ $0 }) else { return }
        if frame.isKeyFrame { awaitingKeyFrame.store(false, ordering: .relaxed) }
        guard pendingFrames.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue <= configuration.queueCapacity else {
            pendingFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            droppedFrames.wrappingAdd(1, ordering: .relaxed)
            if !awaitingKeyFrame.exchange(true, ordering: .relaxed) { requestKeyFrame() }
            return
        }
        sender.eventLoop.execute {
            sender.value.send(frame)
            self.pendingFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
    }

    public func onEncoderError(_ error: CodecError) {
        statistics.withLock { $0.lastError = "\(error)" }
    }

    /// Sends what is queued, then a BYE, and closes the socket.
    public func stop() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing), let (sender, _) = started.withLock({ $0 }) else { return }
        // The loop runs tasks in order: this runs after every frame already queued.
        let closed = try? await sender.eventLoop.submit { sender.value.finish() }.get()
        try? await closed?.get()
    }

    public var senderStatistics: RTPSenderStatistics {
        var latest = statistics.withLock { $0 }
        latest.framesDropped = droppedFrames.load(ordering: .relaxed)
        return latest
    }

    public var status: OutputStatus {
        let latest = senderStatistics
        let isStarted = started.withLock { $0 != nil }
        var status = OutputStatus(state: stopped.load(ordering: .relaxed) ? .stopped : isStarted ? .running : .starting)
        status.framesSent = latest.framesSent
        status.framesDropped = latest.framesDropped
        status.bytesSent = latest.bytesSent
        status.lastError = latest.lastError
        return status
    }

    private func describer(address: SocketAddress) -> @Sendable (ParameterSets) -> Void {
        let base = RTPSessionDescription(
            connectionAddress: address.ipAddress ?? configuration.destination.host, sessionID: sessionID, cname: cname,
            video: .init(port: configuration.destination.port, payloadType: configuration.payloadType, ssrc: ssrc,
                         parameterSets: ParameterSets(codec: .h264)),
            keyingMaterial: configuration.keyingMaterial)
        return { [onSessionDescription] parameterSets in
            var description = base
            description.video.parameterSets = parameterSets
            onSessionDescription(description)
        }
    }

    /// A loopback destination is sent to from loopback (nothing else can reach the socket);
    /// others from any local address, with an ephemeral port.
    private static func localAddress(for destination: SocketAddress) throws -> SocketAddress {
        let isLoopback = destination.ipAddress.map { $0 == "::1" || $0.hasPrefix("127.") } ?? false
        switch (destination.protocol, isLoopback) {
        case (.inet6, true): return try SocketAddress(ipAddress: "::1", port: 0)
        case (.inet6, false): return try SocketAddress(ipAddress: "::", port: 0)
        case (_, true): return try SocketAddress(ipAddress: "127.0.0.1", port: 0)
        default: return try SocketAddress(ipAddress: "0.0.0.0", port: 0)
        }
    }
}
