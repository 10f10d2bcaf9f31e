import Capture
import Codec
import MediaCore

/// The values an encode opens with, checked when the file is read rather than when its camera
/// starts: the encoder's name (one this FFmpeg has, for H.264, H.265 or AV1; nothing is opened),
/// then every setting the encoder checks itself (a preset or tune the encoder's family does not
/// know, a keyframe interval, a bitrate, a maxrate below it, threads; with `auto`, the checks every
/// encoder shares, and the tune as libx264 takes it). Each error names the line of the key that set
/// the value: a rendition's own, else the camera's `encoder:` it inherited from.
extension ConfigParser {
    func checkEncoder(_ encoder: EncoderConfig, size: VideoSize, framesPerSecond: Double, keys: ExplicitEncoderKeys,
                      fallback: ConfigNode) throws(ConfigError) {
        if encoder.name != EncoderPick.automaticName {
            do throws(CodecError) { _ = try VideoEncoder.codec(ofEncoderNamed: encoder.name) } catch {
                let node = keys["name"] ?? fallback
                guard case .encoderNotAvailable = error else { throw node.error("'\(encoder.name)' is not an H.264, H.265 or AV1 encoder; use auto or libx264") }
                throw node.error("'\(encoder.name)' is not an encoder this FFmpeg has; use auto (hardware if it works, else libx264) or one of "
                                 + "\(VideoEncoder.compiledEncoderNames.joined(separator: ", ")) (`livepush encoders` shows which work on this machine)")
            }
        }
        // As configured: `auto` is checked without probing the hardware (its encoder-specific checks wait for the pick)…
        try check(encoder.settings(size: size, framesPerSecond: framesPerSecond, encoderName: encoder.name), keys: keys, fallback: fallback)
        // …but its tune is checked as libx264 (what `auto` falls back to) takes it: a typo fails now, not on the machine without hardware.
        if encoder.name == EncoderPick.automaticName {
            var fallbackSettings = encoder.settings(size: size, framesPerSecond: framesPerSecond, encoderName: "libx264")
            fallbackSettings.preset = "" // hardware ignores the preset; SVT-AV1's numbers would fail here for nothing
            try check(fallbackSettings, keys: keys, fallback: fallback)
        }
    }

    private func check(_ settings: VideoEncoderSettings, keys: ExplicitEncoderKeys, fallback: ConfigNode) throws(ConfigError) {
        do throws(CodecError) { try settings.validate() } catch {
            guard case let .invalidSetting(setting, value, reason) = error, let node = keys.node(for: setting) else { throw fallback.error("\(error)") }
            throw node.error("'\(value)' for \(settings.encoderName): \(reason)")
        }
    }
}

extension ConfigParser.ExplicitEncoderKeys {
    /// The key that set `setting` (a ``VideoEncoderSettings`` name as its errors give it): the key
    /// of that name, `name` for the encoder, and for an unset `maxrate` the bitrate it follows; nil
    /// when the user did not write it.
    func node(for setting: String) -> ConfigNode? {
        switch setting {
        case "encoder": self["name"]
        case "maxrate": self["maxrate"] ?? self["bitrate"]
        default: self[setting]
        }
    }
}
