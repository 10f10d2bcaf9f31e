/// How far a frame must be turned clockwise to display upright.
///
/// Rotation is metadata on ``VideoFrame`` (as the camera reports its orientation), not a property of
/// the pixels: outputs that can signal it (WebRTC's video-orientation extension) pass it through,
/// the others rotate physically with ``I420Buffer/rotated(by:pool:)``.
public enum VideoRotation: Int, Sendable, CaseIterable, Codable {
    case none = 0
    case clockwise90 = 90
    case clockwise180 = 180
    case clockwise270 = 270

    /// Parses degrees as users write them (`0`, `90`, `180`, `270`).
    public init(degrees: Int) throws(MediaError) {
        guard let rotation = VideoRotation(rawValue: ((degrees % 360) + 360) % 360) else {
            throw .invalidRotation(degrees: degrees)
        }
        self = rotation
    }

    public var degrees: Int { rawValue }

    /// Whether turning swaps width and height.
    public var swapsDimensions: Bool { self == .clockwise90 || self == .clockwise270 }
}
