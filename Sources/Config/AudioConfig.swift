/// The audio input (ALSA device) mixed into the outputs that carry audio.
public struct AudioConfig: Sendable, Equatable {
    /// ALSA device name (`default`, `hw:1,0`, `plughw:CARD=Mic`).
    public var device: String
    public var sampleRate: Int
    public var channels: Int
    /// `clock_correction`: keep the audio on the video's clock by inserting or dropping single
    /// sample frames (on by default); off only measures the skew (docs/audio-video-sync.md).
    public var clockCorrection: Bool

    public init(device: String = "default", sampleRate: Int = 48_000, channels: Int = 2, clockCorrection: Bool = true) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        self.clockCorrection = clockCorrection
    }
}
