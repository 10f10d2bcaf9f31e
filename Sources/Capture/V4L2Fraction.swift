/// A V4L2 frame interval (`struct v4l2_fract`): seconds per frame as a fraction, so 30000/1001 fps
/// cameras are described exactly.
public struct V4L2Fraction: Sendable, Hashable, Codable, CustomStringConvertible {
    public var numerator: UInt32
    public var denominator: UInt32

    public init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The interval for a frame rate, in milliframes so fractional rates survive (29.97 → 1000/29970).
    public init(framesPerSecond: Double) {
        let rounded = framesPerSecond.rounded()
        if abs(rounded - framesPerSecond) < 0.001 {
            self.init(numerator: 1, denominator: UInt32(max(1, rounded)))
        } else {
            self.init(numerator: 1000, denominator: UInt32(max(1, (framesPerSecond * 1000).rounded())))
        }
    }

    /// Frames per second; 0 for a malformed (zero) interval.
    public var framesPerSecond: Double {
        numerator == 0 || denominator == 0 ? 0 : Double(denominator) / Double(numerator)
    }

    public var description: String { "\(numerator)/\(denominator) s" }
}
