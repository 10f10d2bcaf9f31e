import Codec

/// What an output gets for a key its config leaves out: the one set of defaults both front ends
/// share. ``ConfigParser`` applies them to a file, and `livepush stream`'s flags write only the keys
/// the user gave (its help quotes these values), so `stream --web` and a `whep: {}` in a file run
/// the same endpoint (`FrontEndConfigParityTests`).
public enum OutputDefaults {
    /// `max_viewers` of a `whep:` output (`stream --max-viewers`). Eight: livepush's usual home is
    /// a Raspberry Pi with a few people watching, and each viewer is a full copy of the stream on
    /// the uplink and its own SRTP encryption; eight at 2.5 Mbit/s already fill a Pi's Wi-Fi
    /// uplink. Raise it (up to ``whepMaxViewersRange``) on a wired box with upload to spare.
    public static let whepMaxViewers = 8
    public static let whepMaxViewersRange = 1...64
    /// `adaptive_bitrate` of an `rtmp`, `srt` or `whep` output (`stream --adaptive-bitrate`; for
    /// WHEP also `--min-bitrate RATE`). Off: the encoder is shared by every output of the camera,
    /// so adaptation lets one destination lower what all the others get: one viewer's weak phone
    /// Wi-Fi would lower the recording and the YouTube push. Turn it on where that one destination
    /// matters most (a push over a variable uplink, a preview-only box).
    public static let adaptiveBitrate = false
    /// `payload_type` of an `rtp:` output (`stream --rtp rtp://HOST:PORT?payload_type=N`): the
    /// first dynamic type (RFC 3551), what ffmpeg and GStreamer expect without an SDP.
    public static let rtpPayloadType = 96
    public static let rtpPayloadTypeRange = 96...127
    /// `start` of every output (`stream --stopped KIND` writes `start: false`): running with its camera.
    public static let startsWithCamera = true
    /// `capture_time` of an output: `sei` for `srt` and `rtp`, whose receivers are tools and media
    /// servers that pass SEI through or read it; `none` for `rtmp`, where a platform's ingest decides
    /// what reaches viewers, and for the kinds that carry capture time their own way or not at all.
    public static func captureTime(_ kind: OutputConfig.Kind) -> CaptureTimeSignal {
        switch kind {
        case .srt, .rtp: return .sei
        case .rtmp, .record, .whep, .whip: return .none
        }
    }
}
