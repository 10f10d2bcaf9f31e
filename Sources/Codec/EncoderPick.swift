import CFFmpeg
import LibAV

/// Which H.264 encoder `encoder: auto` (the default) opens, and why: the V4L2 M2M hardware
/// encoder (a Raspberry Pi's bcm2835-codec) when one is present *and* encodes a test frame,
/// else libx264. Shown by `livepush encoders`, the log and `/api/status`.
public struct EncoderPick: Sendable, Equatable, CustomStringConvertible {
    /// The FFmpeg encoder name picked.
    public var name: String
    /// Why, in words: "/dev/video11 encoded a test frame", "no V4L2 M2M H.264 encoder found".
    public var reason: String

    public var description: String { "\(name): \(reason)" }

    /// The config and CLI value that asks for the pick.
    public static let automaticName = "auto"
    static let hardwareEncoder = "h264_v4l2m2m"
    static let softwareEncoder = "libx264"

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    /// The pick for this process, probed once on first use (opening the hardware encoder takes a
    /// moment and the answer does not change while livepush runs).
    public static var automatic: EncoderPick { probed }

    private static let probed = probe()

    /// Opens h264_v4l2m2m and encodes one frame through it.
    static func probe() -> EncoderPick {
        guard avcodec_find_encoder_by_name(hardwareEncoder) != nil else {
            return EncoderPick(name: softwareEncoder, reason: "this FFmpeg has no \(hardwareEncoder)")
        }
        // On most machines there is no such encoder: FFmpeg's "Could not find a valid device" is the answer, not news.
        switch FFmpegLogging.silenced({ VideoEncoder.testEncode(with: hardwareEncoder) }) {
        case .success(let path):
            return EncoderPick(name: hardwareEncoder, reason: "\(path ?? "the V4L2 M2M encoder") encoded a test frame")
        case .failure(.encoderOpenFailed):
            return EncoderPick(name: softwareEncoder, reason: "no V4L2 M2M H.264 encoder found")
        case .failure(let error):
            return EncoderPick(name: softwareEncoder, reason: "\(hardwareEncoder) did not encode a test frame (\(error))")
        }
    }
}
