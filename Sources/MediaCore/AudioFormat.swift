/// PCM layout of captured audio: signed 16-bit samples, interleaved (L R L R …).
public struct AudioFormat: Sendable, Equatable, CustomStringConvertible {
    public static let supportedSampleRates = [44_100, 48_000]

    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int = 48_000, channels: Int = 2) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public var description: String { "\(sampleRate) Hz \(channels == 1 ? "mono" : "stereo")" }

    public func validate() throws(MediaError) {
        guard Self.supportedSampleRates.contains(sampleRate) else {
            throw .invalidAudioFormat(setting: "sample-rate", value: "\(sampleRate)", reason: "use 48000 or 44100")
        }
        guard channels == 1 || channels == 2 else {
            throw .invalidAudioFormat(setting: "channels", value: "\(channels)", reason: "use 1 (mono) or 2 (stereo)")
        }
    }

    /// Nanoseconds that `frames` sample frames last.
    public func nanos(forFrames frames: Int) -> Int64 { Int64(frames) * 1_000_000_000 / Int64(sampleRate) }

    /// Sample frames in `nanos` (rounded down); seconds and the rest apart, so a span of weeks does not overflow.
    public func frames(forNanos nanos: Int64) -> Int64 {
        let rate = Int64(sampleRate)
        return nanos / 1_000_000_000 * rate + nanos % 1_000_000_000 * rate / 1_000_000_000
    }
}

/// A run of captured PCM: interleaved Int16 samples and the capture time of the first one, on
/// ``MonotonicClock`` like video frames, so audio and video line up.
public struct AudioChunk: Sendable {
    public var format: AudioFormat
    public var samples: [Int16]
    public var captureTimeNanos: Int64

    public init(format: AudioFormat, samples: [Int16], captureTimeNanos: Int64) {
        self.format = format
        self.samples = samples
        self.captureTimeNanos = captureTimeNanos
    }

    /// Sample frames (one sample per channel each).
    public var frameCount: Int { samples.count / format.channels }
}
