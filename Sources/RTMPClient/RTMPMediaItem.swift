import Codec
import RTMP

/// One unit of media waiting to be sent: an encoded video frame (with how much later frames depend on
/// it) or an audio frame (in FLV form, or an encoded AAC frame). Values, so the send queue can be tested without I/O.
public enum RTMPMediaItem: Sendable {
    case video(EncodedVideoFrame, VideoFrameImportance)
    /// `timestampNanos` is the capture time on CLOCK_MONOTONIC, like video's.
    case audio(timestampNanos: Int64, packet: FLVAudioPacket)
    /// A raw AAC frame as the encoder made it: its bytes are shared, not copied, until the packetizer
    /// writes them after the tag header.
    case aacFrame(EncodedAudioFrame)

    /// Decode time on CLOCK_MONOTONIC: what the queue measures its length in.
    public var timestampNanos: Int64 {
        switch self {
        case .video(let frame, _): return frame.dtsNanos
        case .audio(let timestamp, _): return timestamp
        case .aacFrame(let frame): return frame.ptsNanos
        }
    }

    var isVideo: Bool {
        if case .video = self { return true }
        return false
    }

    var videoImportance: VideoFrameImportance? {
        if case .video(_, let importance) = self { return importance }
        return nil
    }
}
