import CFFmpeg

/// An encoder this machine can open, for `livepush encoders`.
public struct AvailableEncoder: Sendable, Equatable {
    public var name: String
    public var codec: VideoCodec
    public var longName: String
}

extension VideoEncoder {
    /// Encoders livepush knows, in order of preference per codec.
    public static let knownEncoderNames = [
        "libx264", "h264_v4l2m2m", "h264_vaapi", "h264_nvenc", "h264_qsv", "libopenh264",
        "libx265", "hevc_v4l2m2m", "hevc_vaapi", "hevc_nvenc", "hevc_qsv", "libsvtav1",
    ]

    /// The known encoders that libavcodec has *and* that open at 640x360 on this machine:
    /// a hardware encoder is compiled into Debian's FFmpeg whether or not the hardware is present.
    public static func availableEncoders() -> [AvailableEncoder] {
        knownEncoderNames.compactMap { name -> AvailableEncoder? in
            guard let encoder = avcodec_find_encoder_by_name(name), let codec = VideoCodec(codecID: encoder.pointee.id) else { return nil }
            let probe = VideoEncoderSettings(encoderName: name, width: 640, height: 360, bitrateBitsPerSecond: 500_000,
                                             preset: name == "libx264" ? "ultrafast" : "")
            guard (try? EncoderContext(settings: probe)) != nil else { return nil }
            return AvailableEncoder(name: name, codec: codec, longName: encoder.pointee.long_name.map { String(cString: $0) } ?? name)
        }
    }
}
