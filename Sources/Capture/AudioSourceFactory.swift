import MediaCore

/// Makes the audio source a device name asks for, with one syntax on the command line and in
/// config files: `tone` (440 Hz), `silence` (servers such as YouTube refuse streams without
/// audio), `ticks` (a 5 ms burst at each second of capture time, to check A/V sync by ear or in a
/// recording), or an ALSA device, written `alsa:NAME` or just `NAME` (`default`, `hw:1,0`,
/// `plughw:CARD=Mic`). The synthetic ones take `?drift_ppm=N` to simulate a sound card off by N ppm
/// (`tone?drift_ppm=-1000`: 0.1 % slow).
public enum AudioSourceFactory {
    public static let silence = "silence"
    public static let tone = "tone"
    public static let ticks = "ticks"
    public static let alsaPrefix = "alsa:"

    public static func make(device: String, format: AudioFormat) throws(CaptureError) -> any AudioSource {
        let synthetic = device.hasPrefix(silence) || device.hasPrefix(tone) || device.hasPrefix(ticks)
        let (name, driftPPM) = synthetic ? try SimulatedDrift.split(device) : (device, nil)
        let signal: SyntheticAudioSource.Signal
        switch name {
        case silence: signal = .silence
        case tone: signal = .tone(frequencyHz: 440, amplitude: 0.3)
        case ticks: signal = .ticks(amplitude: 0.5)
        default: return try AudioCapturer(device: alsaDevice(device), format: format)
        }
        return try SyntheticAudioSource(signal: signal, format: format, driftPPM: driftPPM ?? 0)
    }

    /// The ALSA name in `alsa:NAME` or `NAME`.
    public static func alsaDevice(_ device: String) -> String {
        device.hasPrefix(alsaPrefix) ? String(device.dropFirst(alsaPrefix.count)) : device
    }
}
