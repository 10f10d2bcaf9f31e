extension EncoderConfig {
    /// The rate-control buffer as the config gives it: an amount of bits (`1M`), or a length of time
    /// (`0.5s`) that is that much of the encode's own bitrate, so a rendition that inherits `0.5s`
    /// gets half a second of its bitrate rather than of the camera's.
    public enum BufferSize: Sendable, Equatable {
        case bits(Int)
        case seconds(Double)

        /// The buffer in bits for an encode at `bitrate` bits per second (at least one bit).
        public func bits(atBitrate bitrate: Int) -> Int {
            switch self {
            case let .bits(bits): bits
            case let .seconds(seconds): max(1, Int((seconds * Double(bitrate)).rounded()))
            }
        }
    }
}
