import Codec
import MediaCore

/// What `onMetaData` announces about the stream: the encoder's settings, not guesses from the bitstream.
public struct RTMPStreamDescription: Sendable, Hashable {
    public struct Audio: Sendable, Hashable {
        public var sampleRate: Int
        public var channels: Int
        public var bitrateBitsPerSecond: Int

        public init(sampleRate: Int, channels: Int, bitrateBitsPerSecond: Int) {
            self.sampleRate = sampleRate
            self.channels = channels
            self.bitrateBitsPerSecond = bitrateBitsPerSecond
        }
    }

    public var codec: VideoCodec
    public var width: Int
    public var height: Int
    public var framesPerSecond: Double
    public var videoBitrateBitsPerSecond: Int
    public var audio: Audio?

    public init(codec: VideoCodec, width: Int, height: Int, framesPerSecond: Double, videoBitrateBitsPerSecond: Int, audio: Audio? = nil) {
        self.codec = codec
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.videoBitrateBitsPerSecond = videoBitrateBitsPerSecond
        self.audio = audio
    }
}

extension RTMPStreamDescription {
    /// The video an encoder with these settings produces (validated settings name an encoder FFmpeg has)
    /// from frames captured with `rotation`. RTMP cannot signal rotation, so the shared encode turns
    /// the pixels for it: a quarter turn announces the portrait size the stream really has.
    public init(encoder settings: VideoEncoderSettings, rotation: VideoRotation = .none) {
        let (width, height) = rotation.swapsDimensions ? (settings.height, settings.width) : (settings.width, settings.height)
        self.init(codec: settings.codec ?? .h264, width: width, height: height,
                  framesPerSecond: Double(settings.framesPerSecond), videoBitrateBitsPerSecond: settings.bitrateBitsPerSecond)
    }
}
