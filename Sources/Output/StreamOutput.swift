import Codec

/// How an output is doing, for the status line, the HTTP API and metrics.
public struct OutputStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        case starting, connecting, running, reconnecting, stopped, failed
    }
    public var state: State
    public var framesSent = 0
    public var framesDropped = 0
    /// The part of ``framesDropped`` lost because the output's socket backlog was past its limit
    /// (``SocketBacklogGate``); the rest found the hand-off queue to the output full.
    public var framesDroppedAtSocket = 0
    /// Delta frames not sent after a loss, waiting for the next key frame (``KeyFrameGate``).
    public var framesHeldForKeyFrame = 0
    public var bytesSent: Int64 = 0
    public var reconnects = 0
    public var lastError: String?
    /// Whether the receiver takes the media, from its own acknowledgements (``DeliveryHealth``);
    /// nil for kinds that have no such evidence yet.
    public var health: DeliveryHealth.State?
    /// What this output delivered so far (``DeliveryReport``); nil where ``health`` is nil, except an
    /// RTP output whose receiver sent no RTCP yet: its report says why the health is unknown.
    public var delivery: DeliveryReport?
    /// An SRT output's link statistics; nil for every other kind.
    public var srt: SRTLinkStatistics?
    /// A WHEP output's viewers' own links (estimate, rendition, switches), by session id; nil for every other kind.
    public var viewerLinks: [String: WebRTCViewerLink]?
    /// A recording's files so far, in order: segments, and the files it continued in when the
    /// encoder's parameter sets changed (a CPU-adaptation step); nil for every other kind.
    public var recordingFiles: [String]?

    public init(state: State) { self.state = state }
}

/// One destination of the encoded stream: a recording, an RTMP server, RTP, WebRTC viewers.
///
/// Contract: ``start(requestKeyFrame:)`` is called once before the first frame; frames then arrive
/// through ``EncodedVideoSink/onEncodedFrame(_:)`` on the encoder thread, where an output only
/// enqueues (its own bounded queue, counting drops), so a slow or dead output never stalls the
/// encoder or the other outputs. After ``stop()`` returns there are no further calls.
public protocol StreamOutput: EncodedVideoSink {
    /// A name for logs and status, with secrets (stream keys) masked.
    var name: String { get }
    /// Opens or connects. `requestKeyFrame` asks the shared encoder for an IDR (a new viewer,
    /// a reconnect, after dropping frames); calls are cheap and may come from any thread.
    func start(requestKeyFrame: @escaping @Sendable () -> Void) async throws
    /// Sends or writes what is queued, then closes (a recording is finalized).
    func stop() async
    var status: OutputStatus { get }

    /// The audio codec this output carries (AAC for RTMP and MP4, Opus for WebRTC), or nil for
    /// video only. The pipeline runs one audio encoder per codec some output asks for.
    var audioCodec: AudioCodec? { get }
    /// Describes the audio track; called once, before ``start(requestKeyFrame:)``, when the stream
    /// has audio in this output's ``audioCodec``.
    func prepareAudio(_ track: AudioTrack)
    /// One encoded audio frame, from the audio thread; like video, only enqueue here.
    func onEncodedAudio(_ frame: EncodedAudioFrame)

    /// Whether this output shows frames upright from ``Codec/EncodedVideoFrame/rotation`` metadata
    /// (WebRTC's video orientation extension) rather than needing turned pixels. The shared encode
    /// passes rotation through only when every output says so; otherwise it turns the pixels and
    /// every frame's rotation is `.none`.
    var carriesRotationMetadata: Bool { get }
    /// Hands an output that ``carriesRotationMetadata`` the way out when one of its receivers cannot
    /// apply the metadata (a WHEP viewer without the extension): `rotatePixels` makes the shared
    /// encoder turn the pixels from its next frame on, with an IDR, for good; every output then gets
    /// frames with rotation `.none`. Called once, before ``start(requestKeyFrame:)``, only while the
    /// encode passes rotation through; the closure is cheap and may be called from any thread.
    func prepareRotationFallback(rotatePixels: @escaping @Sendable () -> Void)
    /// Hands an output that adapts to its link (RTMP adaptive bitrate, WHEP viewers' REMB) the way to
    /// cap the shared encoder: `limit(bits)` asks for at most `bits`, `limit(nil)` lifts this
    /// output's cap (it recovered, or stopped). The encoder runs at the lowest cap of all outputs,
    /// never above the configured bitrate (the camera graph's `BitrateArbiter`). Called once, before
    /// ``start(requestKeyFrame:)``; the closure is cheap and may be called from any thread.
    func prepareBitrateLimit(_ limit: @escaping @Sendable (Int?) -> Void)
    /// What this kind alone can tell about its run, as one line for the end of `livepush stream`
    /// (RTMP: drops by kind and send latency; WHEP: what the viewers got), or nil. Scripts, tests
    /// and the benchmarks read these lines.
    var runReport: String? { get }

    /// Whether this output takes the frames of every rendition of its camera, each tagged with
    /// ``Codec/EncodedVideoFrame/rendition``, and picks one per receiver (WHEP viewers following
    /// their own links); false for outputs that take the one rendition they name.
    var servesAllRenditions: Bool { get }
    /// Tells an output that ``servesAllRenditions`` what the renditions are (top first) and how to
    /// ask one of them for a keyframe (a viewer switching to it). Called once, before
    /// ``start(requestKeyFrame:)``; the closure is cheap and may be called from any thread.
    func prepareRenditions(_ renditions: [RenditionDescription], requestKeyFrame: @escaping @Sendable (_ rendition: Int) -> Void)
}

extension StreamOutput {
    public var audioCodec: AudioCodec? { nil }
    public func prepareAudio(_ track: AudioTrack) {}
    public func onEncodedAudio(_ frame: EncodedAudioFrame) {}
    public var carriesRotationMetadata: Bool { false }
    public func prepareRotationFallback(rotatePixels: @escaping @Sendable () -> Void) {}
    public func prepareBitrateLimit(_ limit: @escaping @Sendable (Int?) -> Void) {}
    public var runReport: String? { nil }
    public var servesAllRenditions: Bool { false }
    public func prepareRenditions(_ renditions: [RenditionDescription], requestKeyFrame: @escaping @Sendable (_ rendition: Int) -> Void) {}
}
