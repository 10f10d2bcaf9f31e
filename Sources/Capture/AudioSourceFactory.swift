import MediaCore

/// Makes the audio source a device name asks for, with one syntax on the command line and in
/// config files: `tone` (440 Hz), `silence` (servers such as YouTube refuse streams without
/// audio), or an ALSA device, written `alsa:NAME` or just `NAME` (`default`, `hw:1,0`, `plughw:CARD=Mic`).
public enum AudioSourceFactory {
    public static let silence = "silence"
    public static let tone = "tone"
    public static let alsaPrefix = "alsa:"

    public static func make(device: String, format: AudioFormat) throws(CaptureError) -> any AudioSource {
        switch device {
        case silence: return try SyntheticAudioSource(signal: .silence, format: format)
        case tone: return try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.3), format: format)
        default: return try AudioCapturer(device: alsaDevice(device), format: format)
        }
    }

    /// The ALSA name in `alsa:NAME` or `NAME`.
    public static func alsaDevice(_ device: String) -> String {
        device.hasPrefix(alsaPrefix) ? String(device.dropFirst(alsaPrefix.count)) : device
    }
}
