import Codec
import Config

/// Turns the config's `audio.device` into a source: an ALSA device name, or `tone` / `silence`
/// for a synthetic track (servers such as YouTube refuse streams without audio).
enum AudioSourceFactory {
    static let silence = "silence"
    static let tone = "tone"

    static func make(_ config: AudioConfig) throws -> any AudioSource {
        let format = AudioFormat(sampleRate: config.sampleRate, channels: config.channels)
        switch config.device {
        case silence: return try SyntheticAudioSource(signal: .silence, format: format)
        case tone: return try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.3), format: format)
        default: return try AudioCapturer(device: config.device, format: format)
        }
    }
}
