import ArgumentParser
import Codec

/// `--audio`: what rides along with the video, on the same clock.
struct AudioOptions: ParsableArguments {
    @Option(help: "Audio source: none, tone (440 Hz), silence (for servers that require an audio track), or alsa:DEVICE (e.g. alsa:default, alsa:hw:1,0).")
    var audio: String = "none"

    @Option(help: "Audio sample rate: 48000 or 44100.")
    var audioRate: Int = 48_000

    /// The source, or nil for video only.
    func makeSource() throws -> (any AudioSource)? {
        let format = AudioFormat(sampleRate: audioRate, channels: 2)
        switch audio {
        case "none": return nil
        case "tone": return try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.3), format: format)
        case "silence": return try SyntheticAudioSource(signal: .silence, format: format)
        case let device where device.hasPrefix("alsa:"):
            return try AudioCapturer(device: String(device.dropFirst("alsa:".count)), format: format)
        default:
            throw ValidationError("unknown audio source '\(audio)': use none, tone, silence or alsa:DEVICE")
        }
    }
}
