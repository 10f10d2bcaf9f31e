import Capture
import Codec
import MediaCore

/// One of a camera's encodes (`renditions:`): its own size, frame rate and encoder settings, fed
/// by the camera's one capture. Outputs name the rendition they take (`rendition: sd`).
public struct RenditionConfig: Sendable, Equatable {
    /// The name a camera's outputs refer to it by; unique within the camera.
    public var name: String
    public var size: VideoSize
    /// At most the capture rate: frames are thinned to it (``MediaCore/FrameRateDecimator``).
    public var framesPerSecond: Double
    /// Its encoder, bitrate, keyframe interval, preset and profile (inherited from the camera's
    /// `encoder:` where the rendition does not say).
    public var encoder: EncoderConfig

    /// The name of the rendition a camera without `renditions:` has.
    public static let defaultName = "main"

    public init(name: String, size: VideoSize, framesPerSecond: Double, encoder: EncoderConfig) {
        self.name = name
        self.size = size
        self.framesPerSecond = framesPerSecond
        self.encoder = encoder
    }

    /// The settings this rendition's encoder opens with.
    public var encoderSettings: VideoEncoderSettings { encoder.settings(size: size, framesPerSecond: framesPerSecond) }

    /// How an output that serves every rendition sees it.
    public var description: RenditionDescription {
        RenditionDescription(name: name, width: size.width, height: size.height, framesPerSecond: max(1, Int(framesPerSecond.rounded())),
                             bitrateBitsPerSecond: encoder.bitrateBitsPerSecond)
    }
}

extension CameraConfig {
    /// The encodes that run: the `renditions:` given, else one named ``RenditionConfig/defaultName``
    /// from the camera's size, rate and `encoder:` (so a config without renditions runs as before).
    public var effectiveRenditions: [RenditionConfig] {
        guard renditions.isEmpty else { return renditions }
        return [RenditionConfig(name: RenditionConfig.defaultName, size: size, framesPerSecond: framesPerSecond, encoder: encoder)]
    }

    /// The index (into ``effectiveRenditions``) of the rendition `output` takes: the one it names (a
    /// multitrack RTMP output: its top track), else the first.
    public func renditionIndex(of output: OutputConfig) -> Int {
        guard let name = output.rendition ?? output.tracks.first else { return 0 }
        return effectiveRenditions.firstIndex { $0.name == name } ?? 0
    }

    /// The indices (into ``effectiveRenditions``) of a multitrack RTMP output's tracks, track 0 first;
    /// empty for every other output.
    public func trackRenditionIndices(of output: OutputConfig) -> [Int] {
        output.tracks.compactMap { name in effectiveRenditions.firstIndex { $0.name == name } }
    }
}
