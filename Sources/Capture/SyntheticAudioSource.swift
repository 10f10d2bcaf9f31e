import Foundation
import MediaCore

/// A sine tone or silence, in 10 ms chunks timestamped on the monotonic clock: the audio track
/// for servers that require one (YouTube rejects streams without audio) and for tests.
///
/// Paced sources sleep until each chunk is due (real time, like a sound card); unpaced ones return
/// at once with timestamps still spaced by the chunk duration (tests encode 5 s in milliseconds).
public final class SyntheticAudioSource: AudioSource {
    public enum Signal: Sendable, Equatable {
        case tone(frequencyHz: Double, amplitude: Double)
        case silence
    }

    public let format: AudioFormat
    public let signal: Signal
    public let chunkFrames: Int
    private let paced: Bool
    /// When the first chunk was due; ``reopen()`` moves it so the next chunk is due at once.
    private var startNanos: Int64
    private var framesProduced = 0

    public init(signal: Signal, format: AudioFormat = AudioFormat(), chunkDurationMillis: Int = 10, paced: Bool = true,
                startNanos: Int64 = MonotonicClock.nowNanos()) throws(CaptureError) {
        do throws(MediaError) { try format.validate() } catch { throw .media(error) }
        if case let .tone(frequency, amplitude) = signal {
            guard frequency > 0, frequency < Double(format.sampleRate) / 2 else {
                throw .invalidSetting(name: "tone-frequency", value: "\(frequency)", hint: "must be between 0 and \(format.sampleRate / 2) Hz")
            }
            guard (0...1).contains(amplitude) else {
                throw .invalidSetting(name: "tone-amplitude", value: "\(amplitude)", hint: "must be 0…1 of full scale")
            }
        }
        self.format = format
        self.signal = signal
        chunkFrames = format.sampleRate * max(1, chunkDurationMillis) / 1000
        self.paced = paced
        self.startNanos = startNanos
    }

    public func read() throws(CaptureError) -> AudioChunk {
        let due = startNanos + format.nanos(forFrames: framesProduced)
        if paced {
            let wait = due - MonotonicClock.nowNanos()
            if wait > 0 {
                var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
                nanosleep(&request, nil)
            }
        }
        var samples = [Int16](repeating: 0, count: chunkFrames * format.channels)
        if case let .tone(frequency, amplitude) = signal {
            let step = 2 * Double.pi * frequency / Double(format.sampleRate)
            for frame in 0..<chunkFrames {
                let value = Int16((sin(step * Double(framesProduced + frame)) * amplitude * Double(Int16.max)).rounded())
                for channel in 0..<format.channels { samples[frame * format.channels + channel] = value }
            }
        }
        framesProduced += chunkFrames
        return AudioChunk(format: format, samples: samples, captureTimeNanos: due)
    }

    public func close() {}

    /// Goes on from now, as a sound card opened again would: the next chunk is due at once (paced)
    /// and timestamped now, the tone's phase carrying on.
    public func reopen() throws(CaptureError) {
        startNanos = MonotonicClock.nowNanos() - format.nanos(forFrames: framesProduced)
    }
}
