import Foundation
import MediaCore

/// A sine tone or silence, in 10 ms chunks timestamped on the monotonic clock: the audio track
/// for servers that require one (YouTube rejects streams without audio) and for tests.
///
/// Paced sources sleep until each chunk is due (real time, like a sound card); unpaced ones return
/// at once with timestamps still spaced by the chunk duration (tests encode 5 s in milliseconds).
///
/// `driftPPM` simulates a sound card whose crystal is off: −1000 delivers its samples 0.1 % slower
/// than the nominal rate on the monotonic clock, as a real card's count falls behind the clock the
/// video is stamped with (``AudioClockControl`` corrects that). ``Signal/ticks(amplitude:)`` marks
/// each whole second of capture time with a 5 ms burst, so a recording read back shows where the audio
/// put a known capture instant.
public final class SyntheticAudioSource: AudioSource {
    public enum Signal: Sendable, Equatable {
        case tone(frequencyHz: Double, amplitude: Double)
        case silence
        /// Silence with a 5 ms 1 kHz burst at the start of each second of capture time since the start.
        case ticks(amplitude: Double)
    }

    public let format: AudioFormat
    public let signal: Signal
    public let chunkFrames: Int
    private let paced: Bool
    /// Frames per second of monotonic time: the nominal rate off by `driftPPM`.
    private let actualRate: Double
    /// When the first chunk was due; ``reopen()`` moves it so the next chunk is due at once.
    private var startNanos: Int64
    private var framesProduced = 0

    public init(signal: Signal, format: AudioFormat = AudioFormat(), chunkDurationMillis: Int = 10, paced: Bool = true,
                driftPPM: Double = 0, startNanos: Int64 = MonotonicClock.nowNanos()) throws(CaptureError) {
        do throws(MediaError) { try format.validate() } catch { throw .media(error) }
        if case let .ticks(amplitude) = signal, !(0...1).contains(amplitude) {
            throw .invalidSetting(name: "tick-amplitude", value: "\(amplitude)", hint: "must be 0…1 of full scale")
        }
        if case let .tone(frequency, amplitude) = signal {
            guard frequency > 0, frequency < Double(format.sampleRate) / 2 else {
                throw .invalidSetting(name: "tone-frequency", value: "\(frequency)", hint: "must be between 0 and \(format.sampleRate / 2) Hz")
            }
            guard (0...1).contains(amplitude) else {
                throw .invalidSetting(name: "tone-amplitude", value: "\(amplitude)", hint: "must be 0…1 of full scale")
            }
        }
        guard abs(driftPPM) < 100_000 else {
            throw .invalidSetting(name: "drift-ppm", value: "\(driftPPM)", hint: "must be within ±100000 (10 %)")
        }
        self.format = format
        self.signal = signal
        actualRate = Double(format.sampleRate) * (1 + driftPPM / 1e6)
        chunkFrames = format.sampleRate * max(1, chunkDurationMillis) / 1000
        self.paced = paced
        self.startNanos = startNanos
    }

    public func read() throws(CaptureError) -> AudioChunk {
        let due = startNanos + nanos(forFrames: framesProduced)
        if paced {
            let wait = due - MonotonicClock.nowNanos()
            if wait > 0 {
                var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
                nanosleep(&request, nil)
            }
        }
        var samples = [Int16](repeating: 0, count: chunkFrames * format.channels)
        for frame in 0..<chunkFrames {
            let value = sample(at: framesProduced + frame)
            for channel in 0..<format.channels { samples[frame * format.channels + channel] = value }
        }
        framesProduced += chunkFrames
        return AudioChunk(format: format, samples: samples, captureTimeNanos: due)
    }

    private func sample(at frame: Int) -> Int16 {
        switch signal {
        case .silence:
            return 0
        case let .tone(frequency, amplitude):
            let step = 2 * Double.pi * frequency / Double(format.sampleRate)
            return Int16((sin(step * Double(frame)) * amplitude * Double(Int16.max)).rounded())
        case let .ticks(amplitude):
            // Where the frame falls in its second of capture time, seconds: a 1 kHz burst for the first 5 ms.
            let intoSecond = Double(frame).truncatingRemainder(dividingBy: actualRate) / actualRate
            guard intoSecond < 0.005 else { return 0 }
            return Int16((sin(2 * Double.pi * 1000 * intoSecond) * amplitude * Double(Int16.max)).rounded())
        }
    }

    /// Monotonic time `frames` take at the drifting rate.
    private func nanos(forFrames frames: Int) -> Int64 { Int64((Double(frames) / actualRate * 1e9).rounded()) }

    public func close() {}

    /// Goes on from now, as a sound card opened again would: the next chunk is due at once (paced)
    /// and timestamped now, the tone's phase carrying on.
    public func reopen() throws(CaptureError) {
        startNanos = MonotonicClock.nowNanos() - nanos(forFrames: framesProduced)
    }
}
