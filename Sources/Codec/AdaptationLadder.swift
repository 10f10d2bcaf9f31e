/// The rungs an overloaded encode steps down through, from the configured size and rate: first
/// smaller pictures (1080p → 720p → 540p → 360p …, keeping the aspect, even dimensions, never
/// below the minimum size), then lower frame rates (60 → 30 → 20 → 15 …, never below the minimum).
///
/// Resolution goes first because it costs the viewer less than motion does, and each size step
/// roughly halves x264's work. Pure: the encoder thread keeps an index into ``rungs``.
public struct AdaptationLadder: Sendable, Equatable {
    /// One operating point of the encoder.
    public struct Rung: Sendable, Equatable, CustomStringConvertible {
        public var width: Int
        public var height: Int
        public var framesPerSecond: Int

        public init(width: Int, height: Int, framesPerSecond: Int) {
            self.width = width
            self.height = height
            self.framesPerSecond = framesPerSecond
        }

        /// `1280x720@60`, as the log and status show it.
        public var description: String { "\(width)x\(height)@\(framesPerSecond)" }
    }

    /// Picture heights a step down tries, largest first (the common broadcast sizes).
    public static let stepHeights = [2160, 1440, 1080, 720, 540, 360, 270, 180]
    /// Frame rates a step down tries, largest first.
    public static let stepFramesPerSecond = [60, 50, 30, 25, 20, 15, 10, 5]

    /// The configured operating point first, then each step down.
    public let rungs: [Rung]

    public init(width: Int, height: Int, framesPerSecond: Int, settings: CPUAdaptationSettings) {
        var rungs = [Rung(width: width, height: height, framesPerSecond: framesPerSecond)]
        for stepHeight in Self.stepHeights where stepHeight < height {
            let stepWidth = Self.even(Double(width) * Double(stepHeight) / Double(height))
            guard stepHeight >= settings.minimumHeight, stepWidth >= settings.minimumWidth else { break }
            rungs.append(Rung(width: stepWidth, height: stepHeight, framesPerSecond: framesPerSecond))
        }
        let smallest = rungs[rungs.count - 1]
        for fps in Self.stepFramesPerSecond where fps < framesPerSecond {
            guard fps >= settings.minimumFramesPerSecond else { break }
            // 60 → 30 rather than 60 → 50: a step must save enough to matter.
            guard Double(fps) <= Double(rungs[rungs.count - 1].framesPerSecond) * 0.8 else { continue }
            rungs.append(Rung(width: smallest.width, height: smallest.height, framesPerSecond: fps))
        }
        self.rungs = rungs
    }

    /// The rounded value, made even (yuv420p needs even dimensions), at least 2.
    static func even(_ value: Double) -> Int {
        max(2, Int((value / 2).rounded()) * 2)
    }
}
