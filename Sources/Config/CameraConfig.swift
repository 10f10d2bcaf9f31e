import Capture
import Codec
import MediaCore
import Overlay

/// One camera: its capture settings, its encodes (one, or the `renditions:` given) and the outputs that share them.
public struct CameraConfig: Sendable, Equatable {
    /// Short name used in the API (`/api/cameras/{id}`), logs and metrics labels.
    public var id: String
    public var source: SourceSpec
    /// What libavformat may open for a `file:` source (`source_protocols`): `file` unless the config
    /// names more, for a source that is a URL.
    public var sourceProtocols = ["file"]
    public var size: VideoSize
    public var framesPerSecond: Double
    public var rotation: VideoRotation
    public var mirror: Bool
    /// v4l2-ctl control names and values applied at every open of the camera.
    public var controls: [String: String]
    /// Seconds without a frame before the camera is considered gone (the "no signal" card shows).
    public var stallTimeoutSeconds: Double
    public var encoder: EncoderConfig
    /// The encodes it runs, top first (highest bitrate first); empty: one from ``size``,
    /// ``framesPerSecond`` and ``encoder`` (``effectiveRenditions``).
    public var renditions: [RenditionConfig] = []
    public var outputs: [OutputConfig]
    /// Text burned into every frame before encoding (`overlay:`); nil: none.
    public var overlay: OverlaySettings?
    /// CPU-overload adaptation (`adapt: {cpu: true, min_size, min_fps, up_after}`): nil when off.
    public var adapt: CPUAdaptationSettings?
    /// Capture and encode only while watched (`on_demand:`); nil: always on.
    public var onDemand: OnDemandConfig?

    public init(id: String, source: SourceSpec = .testPattern, size: VideoSize = VideoSize(width: 1280, height: 720),
                framesPerSecond: Double = 30, rotation: VideoRotation = .none, mirror: Bool = false,
                controls: [String: String] = [:], stallTimeoutSeconds: Double = V4L2Source.defaultStallTimeoutSeconds,
                encoder: EncoderConfig = EncoderConfig(), outputs: [OutputConfig] = []) {
        self.id = id
        self.source = source
        self.size = size
        self.framesPerSecond = framesPerSecond
        self.rotation = rotation
        self.mirror = mirror
        self.controls = controls
        self.stallTimeoutSeconds = stallTimeoutSeconds
        self.encoder = encoder
        self.outputs = outputs
    }

    public var captureConfig: CaptureConfig {
        CaptureConfig(size: size, framesPerSecond: framesPerSecond, rotation: rotation, mirror: mirror, fileProtocols: sourceProtocols)
    }
}
