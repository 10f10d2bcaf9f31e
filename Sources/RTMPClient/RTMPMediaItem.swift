import Codec
import RTMP

/// One unit of media waiting to be sent: an encoded video frame (with how much later frames depend on
/// it) or an audio frame already in FLV form. Values, so the send queue can be tested without I/O.
public enum RTMPMediaItem: Sendable {
    case video(EncodedVideoFrame, VideoFrameImportance)
    /// `timestampNanos` is the capture time on CLOCK_MONOTONIC, like video's.
    case audio(timestampNanos: Int64, packet: FLVAudioPacket)

    /// Decode time on CLOCK_MONOTONIC: what the queue measures its length in.
    public var timestampNanos: Int64 {
        switch self {
        case .video(let frame, _): return frame.dtsNanos
        case .audio(let timestamp, _): return timestamp
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
