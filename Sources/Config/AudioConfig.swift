/// The audio input (ALSA device) mixed into the outputs that carry audio.
public struct AudioConfig: Sendable, Equatable {
    /// ALSA device name (`default`, `hw:1,0`, `plughw:CARD=Mic`).
    public var device: String
    public var sampleRate: Int
    public var channels: Int

    public init(device: String = "default", sampleRate: Int = 48_000, channels: Int = 2) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
