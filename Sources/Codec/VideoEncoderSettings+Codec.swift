import CFFmpeg

extension VideoEncoderSettings {
    /// The compression format the named encoder produces, as FFmpeg itself knows it (libx265 and
    /// hevc_v4l2m2m → HEVC, …); nil when this FFmpeg has no encoder of that name.
    public var codec: VideoCodec? {
        avcodec_find_encoder_by_name(encoderName).flatMap { VideoCodec(codecID: $0.pointee.id) }
    }
}
