import MediaCore

/// One pixel format a camera offers, with every size and the frame rates at each size: the
/// `v4l2-ctl --list-formats-ext` view that `livepush devices` prints and negotiation chooses from.
public struct V4L2FormatInfo: Sendable, Equatable, Codable {
    public var fourcc: V4L2FourCC
    public var description: String
    public var compressed: Bool
    /// True when the driver offered a stepwise or continuous size range; ``modes`` then holds the
    /// range's ends and the common sizes inside it rather than every possible size.
    public var stepwise: Bool
    public var modes: [V4L2Mode]

    public init(fourcc: V4L2FourCC, description: String, compressed: Bool, stepwise: Bool = false, modes: [V4L2Mode]) {
        self.fourcc = fourcc
        self.description = description
        self.compressed = compressed
        self.stepwise = stepwise
        self.modes = modes
    }

    /// The intervals offered at `size`, or nil when the format does not offer that size.
    public func intervals(at size: VideoSize) -> [V4L2Fraction]? {
        modes.first { $0.size == size }?.intervals
    }
}

/// A frame size and the frame intervals the device offers at it.
public struct V4L2Mode: Sendable, Equatable, Codable {
    public var size: VideoSize
    public var intervals: [V4L2Fraction]

    public init(size: VideoSize, intervals: [V4L2Fraction]) {
        self.size = size
        self.intervals = intervals
    }

    /// Frame rates, highest first.
    public var framesPerSecond: [Double] { intervals.map(\.framesPerSecond).sorted(by: >) }
}
