import MediaCore

/// What a capturer is asked for. The source negotiates the nearest it can do and reports that in
/// ``CaptureFormat``.
public struct CaptureConfig: Sendable, Equatable {
    /// The preferred size, then sizes to try in order when the source cannot do it.
    public var size: VideoSize
    public var fallbackSizes: [VideoSize]
    public var framesPerSecond: Double
    /// Preferred source pixel format (a camera may still pick MJPEG when the bus can't carry raw).
    public var preferredPixelFormat: PixelFormat?
    /// Rotation metadata attached to every frame (how the camera is mounted).
    public var rotation: VideoRotation
    /// Mirror left↔right physically (a front-facing camera's selfie view).
    public var mirror: Bool
    /// The libavformat protocols a file source may use (``InputWhitelist/protocols``): `file` only,
    /// unless the config asks for more, so a file cannot make livepush fetch URLs.
    public var fileProtocols: [String]
    /// How far a file source may run ahead of its clock: it then delivers the frames due within
    /// that span at once, as fast as the encoder takes them, and sleeps until the next is due. Only
    /// for a file nobody watches live (every output records): encoding in bursts keeps x264's
    /// caches warm (BENCHMARKS.md, issue 28), as GStreamer's pipeline does while its MP4 muxer
    /// holds a fragment. Zero (the default): each frame when it is due, as a camera's.
    public var fileRunAhead: Duration = .zero

    /// The fallback list livepush uses when none is given: 4K, 1080p, 720p, then the source's lowest.
    public static let defaultFallbackSizes = [
        VideoSize(width: 3840, height: 2160), VideoSize(width: 1920, height: 1080), VideoSize(width: 1280, height: 720),
    ]

    public init(size: VideoSize = VideoSize(width: 1280, height: 720), fallbackSizes: [VideoSize] = CaptureConfig.defaultFallbackSizes,
                framesPerSecond: Double = 30, preferredPixelFormat: PixelFormat? = nil,
                rotation: VideoRotation = .none, mirror: Bool = false, fileProtocols: [String] = ["file"]) {
        self.size = size
        self.fallbackSizes = fallbackSizes
        self.framesPerSecond = framesPerSecond
        self.preferredPixelFormat = preferredPixelFormat
        self.rotation = rotation
        self.mirror = mirror
        self.fileProtocols = fileProtocols
    }

    /// Throws when the frame rate is outside 0 < fps ≤ 240.
    public func validate() throws(CaptureError) {
        guard framesPerSecond > 0, framesPerSecond <= 240 else {
            throw .invalidSetting(name: "fps", value: "\(framesPerSecond)", hint: "use a frame rate between 1 and 240")
        }
        do { try I420Buffer.validate(width: size.width, height: size.height) } catch {
            throw .invalidSetting(name: "size", value: "\(size)", hint: "\(error)")
        }
    }
}

/// What a source actually delivers after negotiation.
public struct CaptureFormat: Sendable, Equatable, CustomStringConvertible {
    public var size: VideoSize
    public var framesPerSecond: Double
    public var pixelFormat: PixelFormat
    /// Notes on what differs from the request (e.g. "30 fps not offered at 1920x1080, using 15").
    public var notes: [String]

    public init(size: VideoSize, framesPerSecond: Double, pixelFormat: PixelFormat, notes: [String] = []) {
        self.size = size
        self.framesPerSecond = framesPerSecond
        self.pixelFormat = pixelFormat
        self.notes = notes
    }

    public var description: String {
        let fps = framesPerSecond.rounded() == framesPerSecond ? "\(Int(framesPerSecond))" : String(framesPerSecond)
        return "\(size) @ \(fps) fps \(pixelFormat)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
    }
}
