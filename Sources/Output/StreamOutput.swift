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
    /// Why the output is in its state, where that is not obvious: an RTMP output retrying a key the
    /// server still holds (``KeyInUseRetry``); nil otherwise.
    public var stateReason: String?
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
    /// An RTMP output's latest ReconnectRequest from the server: honoured, refused or failed, and when;
    /// nil until a server asks (and for every other kind).
    public var reconnectRequest: ReconnectRequestReport?
    /// Outputs with backup ingests: which one carries the stream, since when and why.
    public var ingest: IngestReport?

    public init(state: State) { self.state = state }
}

/// One destination of the encoded stream: a recording, an RTMP server, RTP, WebRTC viewers.
///
/// Contract: ``start(_:)`` is called once before the first frame, with everything the output
/// needs from the camera graph (``OutputStartContext``); frames then arrive through
/// ``EncodedVideoSink/onEncodedFrame(_:)`` on the encoder thread, where an output only enqueues
/// (its own bounded queue, counting drops), so a slow or dead output never stalls the encoder or
/// the other outputs. After ``stop()`` returns there are no further calls.
public protocol StreamOutput: EncodedVideoSink {
    /// A name for logs and status, with secrets (stream keys) masked.
    var name: String { get }
    /// Opens or connects, keeping what `context` hands over: the key-frame request (a new viewer,
    /// a reconnect, after dropping frames), the audio track, the bitrate cap, the rotation fallback
    /// and the renditions, each only where this output takes it (``OutputStartContext/restricted(to:)``).
    func start(_ context: OutputStartContext) async throws
    /// Sends or writes what is queued, then closes (a recording is finalized).
    func stop() async
    var status: OutputStatus { get }

    /// The audio codec this output carries (AAC for RTMP and MP4, Opus for WebRTC), or nil for
    /// video only. The pipeline runs one audio encoder per codec some output asks for, and hands
    /// the track at start (``OutputStartContext/audioTrack``).
    var audioCodec: AudioCodec? { get }
    /// One encoded audio frame, from the audio thread; like video, only enqueue here.
    func onEncodedAudio(_ frame: EncodedAudioFrame)

    /// Whether this output shows frames upright from ``Codec/EncodedVideoFrame/rotation`` metadata
    /// (WebRTC's video orientation extension) rather than needing turned pixels. The shared encode
    /// passes rotation through only when every output says so; otherwise it turns the pixels and
    /// every frame's rotation is `.none`. While it passes rotation through, such an output gets a
    /// way to make it turn them after all (``OutputStartContext/rotatePixels``).
    var carriesRotationMetadata: Bool { get }
    /// What this kind alone can tell about its run, as one line for the end of `livepush stream`
    /// (RTMP: drops by kind and send latency; WHEP: what the viewers got), or nil. Scripts, tests
    /// and the benchmarks read these lines.
    var runReport: String? { get }

    /// Whether this output takes the frames of every rendition of its camera, each tagged with
    /// ``Codec/EncodedVideoFrame/rendition``, and picks one per receiver (WHEP viewers following
    /// their own links); false for outputs that take the one rendition they name. Such an output
    /// learns the renditions at start (``OutputStartContext/renditions``).
    var servesAllRenditions: Bool { get }
}

extension StreamOutput {
    public var audioCodec: AudioCodec? { nil }
    public func onEncodedAudio(_ frame: EncodedAudioFrame) {}
    public var carriesRotationMetadata: Bool { false }
    public var runReport: String? { nil }
    public var servesAllRenditions: Bool { false }
}
