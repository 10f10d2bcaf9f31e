/// Inserts or drops single sample frames, spread evenly, so a stream of interleaved PCM gains or
/// loses `correction` frames per frame passed through (``AudioClockControl/correction``).
///
/// An inserted frame is the midpoint of its neighbours and a dropped frame is simply left out, so
/// a smooth signal sees a step of at most half (insert) or one (drop) sample's change: at 0.1 %,
/// one frame in a thousand (every 21 ms at 48 kHz). Whole frames only, so the channels stay
/// aligned. The fraction not yet applied carries over to the next chunk; with no correction the
/// samples pass through unchanged. Owned by one thread; `output` keeps its capacity, so the steady
/// state allocates nothing.
public struct SampleFrameCorrector: Sendable {
    public let channels: Int
    /// Frames owed: positive, frames to insert; negative, to drop. Always within ±1.
    private var owed = 0.0
    /// The last frame passed on, for the midpoint of an insert at a chunk's start.
    private var previous: (Int16, Int16) = (0, 0)
    /// Frames inserted minus frames dropped since the start.
    public private(set) var netFrames: Int64 = 0

    public init(channels: Int) { self.channels = channels }

    /// Appends `samples`, corrected, to `output` (emptied first).
    public mutating func correct(_ samples: [Int16], correction: Double, into output: inout [Int16]) {
        output.removeAll(keepingCapacity: true)
        let frames = samples.count / channels
        guard correction != 0 || owed != 0 else {
            output.append(contentsOf: samples)
            if frames > 0 { remember(samples, frame: frames - 1) }
            return
        }
        for frame in 0..<frames {
            owed += correction
            if owed <= -1 {
                owed += 1
                netFrames -= 1
                continue
            }
            if owed >= 1 {
                owed -= 1
                netFrames += 1
                output.append(midpoint(previous.0, samples[frame * channels]))
                if channels == 2 { output.append(midpoint(previous.1, samples[frame * channels + 1])) }
            }
            output.append(contentsOf: samples[(frame * channels)..<((frame + 1) * channels)])
            remember(samples, frame: frame)
        }
    }

    private mutating func remember(_ samples: [Int16], frame: Int) {
        previous = (samples[frame * channels], channels == 2 ? samples[frame * channels + 1] : 0)
    }

    private func midpoint(_ a: Int16, _ b: Int16) -> Int16 { Int16((Int32(a) + Int32(b)) / 2) }
}
