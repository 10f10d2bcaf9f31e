/// What `preset` and `tune` mean differs per encoder: x264 and x265 take names (ultrafast … placebo),
/// SVT-AV1 takes numbers (0 slowest … 13 fastest), hardware encoders have their own or none. livepush's
/// settings use x264's names (the default is veryfast) and each family maps them to its own, so every
/// encoder streams with the defaults.
enum EncoderFamily: Sendable, Equatable {
    case x264, x265, svtAV1, hardware

    init(encoderName: String) {
        switch encoderName {
        case "libx264": self = .x264
        case "libx265": self = .x265
        case "libsvtav1": self = .svtAV1
        default: self = .hardware
        }
    }

    /// x264's presets, slowest last; x265 has the same names.
    static let presetNames = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    /// SVT-AV1's preset for each of those names, at about the same place between fastest and slowest.
    static let svtAV1Presets = [12, 11, 10, 9, 8, 6, 4, 3, 2, 1]
    static let x264Tunes = ["film", "animation", "grain", "stillimage", "psnr", "ssim", "fastdecode", "zerolatency"]
    static let x265Tunes = ["psnr", "ssim", "grain", "zerolatency", "fastdecode", "animation"]

    /// The encoder's own value for `preset`, nil where it takes none (hardware encoders ignore it).
    func presetValue(for preset: String) throws(CodecError) -> String? {
        let index = Self.presetNames.firstIndex(of: preset)
        switch self {
        case .hardware:
            return nil
        case .x264, .x265:
            guard index != nil else {
                throw .invalidSetting(setting: "preset", value: preset, reason: "presets are \(Self.presetNames.joined(separator: ", "))")
            }
            return preset
        case .svtAV1:
            if let index { return String(Self.svtAV1Presets[index]) }
            guard let number = Int(preset), (0...13).contains(number) else {
                throw .invalidSetting(setting: "preset", value: preset,
                                      reason: "SVT-AV1 takes 0 (slowest) … 13 (fastest), or one of \(Self.presetNames.joined(separator: ", "))")
            }
            return preset
        }
    }

    /// The tunes this family takes; nil where livepush's tune does not apply (SVT-AV1's tune is a
    /// quality metric, hardware encoders name theirs differently), so it is left out.
    var tunes: [String]? {
        switch self {
        case .x264: Self.x264Tunes
        case .x265: Self.x265Tunes
        case .svtAV1, .hardware: nil
        }
    }

    /// Whether a frame sent with `pict_type` I comes out a keyframe. SVT-AV1 ignores it (FFmpeg's
    /// libsvtav1 wrapper says it cannot take keyframe requests at arbitrary points; with a long GOP,
    /// `ffmpeg -force_key_frames` gets one keyframe from it here), so its own counter places them.
    var keysFramesOnRequest: Bool { self != .svtAV1 }

    /// Options that keep the encoder from holding frames back to reorder them: live video wants
    /// each frame out as it goes in. SVT-AV1's low-delay prediction structure needs its CBR mode.
    var lowDelayOptions: [(name: String, value: String)] {
        self == .svtAV1 ? [("svtav1-params", "pred-struct=1:rc=2")] : []
    }
}
