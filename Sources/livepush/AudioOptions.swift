import ArgumentParser

/// `--audio`: what rides along with the video, on the same clock.
struct AudioOptions: ParsableArguments {
    @Option(help: "Audio source: none, tone (440 Hz), silence (for servers that require an audio track), ticks (a beep each second, to check A/V sync), or alsa:DEVICE (e.g. alsa:default, alsa:hw:1,0). tone, silence and ticks take ?drift_ppm=N to simulate a sound card off by N ppm.")
    var audio: String = "none"

    @Option(help: "Audio sample rate: 48000 or 44100.")
    var audioRate: Int = 48_000

    @Option(help: "Audio channels: 1 (mono, e.g. a USB microphone) or 2 (the default).")
    var audioChannels: Int?

    /// The `audio:` mapping of a config, or nil for video only.
    func mapping() throws -> ConfigDraft.Mapping? {
        guard audio != "none" else {
            if audioChannels != nil { throw ValidationError("--audio-channels describes the audio: add --audio SOURCE") }
            return nil
        }
        let synthetic = audio.split(separator: "?", maxSplits: 1).first.map(String.init) ?? audio
        guard ["tone", "silence", "ticks"].contains(synthetic) || audio.hasPrefix("alsa:") else {
            throw ValidationError("unknown audio source '\(audio)': use none, tone, silence, ticks or alsa:DEVICE")
        }
        var mapping = ConfigDraft.Mapping()
        mapping.set("device", audio)
        mapping.set("sample_rate", "\(audioRate)")
        mapping.set("channels", audioChannels.map(String.init))
        return mapping
    }
}
