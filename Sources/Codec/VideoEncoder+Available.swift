import CFFmpeg
import MediaCore

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

    /// The known encoders this FFmpeg build has compiled in (whether or not their hardware is here):
    /// cheap, opens nothing, for an error message that lists what to write instead.
    public static var compiledEncoderNames: [String] { knownEncoderNames.filter { avcodec_find_encoder_by_name($0) != nil } }

    /// The codec the libavcodec encoder `name` produces, without opening it: throws when this
    /// FFmpeg has no encoder of that name, or it is not an H.264, H.265 or AV1 one. `check-config`
    /// and the config parser refuse a misspelt encoder with this before any camera starts.
    public static func codec(ofEncoderNamed name: String) throws(CodecError) -> VideoCodec {
        try findEncoder(named: name, available: { compiledEncoderNames }).codec
    }

    /// libavcodec's encoder `name` and its codec; `available` lists the alternatives for the error.
    static func findEncoder(named name: String,
                            available: () -> [String]) throws(CodecError) -> (encoder: UnsafePointer<AVCodec>, codec: VideoCodec) {
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw .encoderNotAvailable(name: name, available: available())
        }
        guard let codec = VideoCodec(codecID: encoder.pointee.id) else {
            throw .invalidSetting(setting: "encoder", value: name, reason: "is not an H.264, H.265 or AV1 encoder")
        }
        return (encoder, codec)
    }

    /// The known encoders that libavcodec has *and* that encode a 640x360 frame on this machine:
    /// a hardware encoder is compiled into Debian's FFmpeg whether or not the hardware is present,
    /// and some fail only on the first frame. (Encoding a frame also lets SVT-AV1 close cleanly.)
    public static func availableEncoders() -> [AvailableEncoder] {
        knownEncoderNames.compactMap { name -> AvailableEncoder? in
            guard let encoder = avcodec_find_encoder_by_name(name), let codec = VideoCodec(codecID: encoder.pointee.id),
                  canEncode(with: name) else { return nil }
            return AvailableEncoder(name: name, codec: codec, longName: encoder.pointee.long_name.map { String(cString: $0) } ?? name)
        }
    }

    private static func canEncode(with name: String) -> Bool {
        if case .success = testEncode(with: name) { return true }
        return false
    }

    /// Opens the encoder and encodes one 640x360 frame; on success, the V4L2 M2M node it used
    /// (nil for encoders that have none).
    static func testEncode(with name: String) -> Result<String?, CodecError> {
        let settings = VideoEncoderSettings(encoderName: name, width: 640, height: 360, bitrateBitsPerSecond: 500_000,
                                            preset: name == "libx264" ? "ultrafast" : "")
        do throws(CodecError) {
            let encoder = try VideoEncoder(settings: settings)
            let buffer: I420Buffer
            do throws(MediaError) { buffer = try I420Buffer(width: 640, height: 360) } catch { throw .media(error) }
            buffer.fill(y: 128, u: 128, v: 128)
            var produced = 0
            try encoder.encode(VideoFrame(buffer: buffer, captureTimeNanos: 0)) { _ in produced += 1 }
            try encoder.flush { _ in produced += 1 }
            guard produced > 0 else {
                return .failure(.invalidSetting(setting: "encoder", value: name, reason: "returned no frame for a test frame"))
            }
            return .success(encoder.m2mDevicePath)
        } catch {
            return .failure(error)
        }
    }
}
