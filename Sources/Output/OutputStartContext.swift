import Codec

/// What an output needs from the camera graph, handed over once, at ``StreamOutput/start(_:)``: how
/// to ask for a key frame, the audio track, how to cap the shared encoder, how to make it turn the
/// pixels, and the renditions. One value rather than a call per piece, so an output cannot start
/// before it has been told them and keeps them together.
///
/// Every closure is cheap and may be called from any thread.
public struct OutputStartContext: Sendable {
    /// The camera's renditions, top first, and how to ask one of them for a key frame (a viewer
    /// switching to it), for an output that ``StreamOutput/servesAllRenditions``.
    public struct Renditions: Sendable {
        public var list: [RenditionDescription]
        public var requestKeyFrame: @Sendable (_ rendition: Int) -> Void
        /// Asks these renditions for keyframes on one captured frame, the first captured from now on
        /// (an output sending them as tracks of one connection: a server switches viewers between
        /// tracks at keyframes that share their times).
        public var requestAlignedKeyFrames: @Sendable (_ renditions: [Int]) -> Void

        public init(list: [RenditionDescription], requestKeyFrame: @escaping @Sendable (_ rendition: Int) -> Void,
                    requestAlignedKeyFrames: @escaping @Sendable (_ renditions: [Int]) -> Void = { _ in }) {
            self.list = list
            self.requestKeyFrame = requestKeyFrame
            self.requestAlignedKeyFrames = requestAlignedKeyFrames
        }
    }

    /// Asks the encoders this output takes for an IDR (a new viewer, a reconnect, after dropping frames).
    public var requestKeyFrame: @Sendable () -> Void
    /// The stream's audio track in this output's ``StreamOutput/audioCodec``; nil for a stream
    /// without audio or an output that carries none.
    public var audioTrack: AudioTrack?
    /// Caps the shared encoder for an output that adapts to its link (RTMP or SRT adaptive
    /// bitrate, WHEP viewers' REMB): `limitBitrate(bits)` asks for at most `bits`, `limitBitrate(nil)`
    /// lifts this output's cap (it recovered, or stopped). The encoder runs at the lowest cap of all
    /// outputs, never above the configured bitrate (the camera graph's `BitrateArbiter`).
    public var limitBitrate: @Sendable (_ bitsPerSecond: Int?) -> Void
    /// The way out for an output that ``StreamOutput/carriesRotationMetadata`` when one of its
    /// receivers cannot apply the metadata (a WHEP viewer without the extension): it makes the
    /// shared encoder turn the pixels from its next frame on, with an IDR, for good; every output
    /// then gets frames with rotation `.none`. Nil when the encode turns the pixels already.
    public var rotatePixels: (@Sendable () -> Void)?
    /// Set only for an output that ``StreamOutput/servesAllRenditions``.
    public var renditions: Renditions?

    /// The defaults suit an output started on its own (a test, a benchmark): key-frame requests and
    /// caps go nowhere, no audio, no rotation fallback, no renditions.
    public init(requestKeyFrame: @escaping @Sendable () -> Void = {}, audioTrack: AudioTrack? = nil,
                limitBitrate: @escaping @Sendable (_ bitsPerSecond: Int?) -> Void = { _ in },
                rotatePixels: (@Sendable () -> Void)? = nil, renditions: Renditions? = nil) {
        self.requestKeyFrame = requestKeyFrame
        self.audioTrack = audioTrack
        self.limitBitrate = limitBitrate
        self.rotatePixels = rotatePixels
        self.renditions = renditions
    }

    /// The pieces `output` takes: the audio track only in its codec, the rotation fallback only if
    /// it carries rotation metadata, the renditions only if it serves all of them.
    public func restricted(to output: any StreamOutput) -> OutputStartContext {
        var context = self
        if audioTrack?.codec != output.audioCodec { context.audioTrack = nil }
        if !output.carriesRotationMetadata { context.rotatePixels = nil }
        if !output.servesAllRenditions { context.renditions = nil }
        return context
    }
}
