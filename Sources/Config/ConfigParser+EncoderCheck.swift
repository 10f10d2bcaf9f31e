import Capture
import Codec

/// The values an encode opens with, checked when the file is read rather than when its camera
/// starts: the encoder's name (one this FFmpeg has, for H.264, H.265 or AV1; nothing is opened),
/// then every setting the encoder checks itself (a preset the encoder's family does not know, a
/// keyframe interval, a bitrate; with `auto`, the checks every encoder shares). Each error names the line of the key that set the value: a
/// rendition's own, else the camera's `encoder:` it inherited from.
extension ConfigParser {
    func checkEncoder(_ encoder: EncoderConfig, size: VideoSize, framesPerSecond: Double, keys: ExplicitEncoderKeys,
                      fallback: ConfigNode) throws(ConfigError) {
        if encoder.name != EncoderPick.automaticName {
            do throws(CodecError) { _ = try VideoEncoder.codec(ofEncoderNamed: encoder.name) } catch {
                let node = keys.name ?? fallback
                guard case .encoderNotAvailable = error else { throw node.error("'\(encoder.name)' is not an H.264, H.265 or AV1 encoder; use auto or libx264") }
                throw node.error("'\(encoder.name)' is not an encoder this FFmpeg has; use auto (hardware if it works, else libx264) or one of "
                                 + "\(VideoEncoder.compiledEncoderNames.joined(separator: ", ")) (`livepush encoders` shows which work on this machine)")
            }
        }
        // As configured: `auto` is checked without probing the hardware (its encoder-specific checks wait for the pick).
        do throws(CodecError) { try encoder.settings(size: size, framesPerSecond: framesPerSecond, encoderName: encoder.name).validate() } catch {
            guard case let .invalidSetting(setting, value, reason) = error, let node = keys.node(for: setting) else { throw fallback.error("\(error)") }
            throw node.error("'\(value)' for \(encoder.name): \(reason)")
        }
    }
}

extension ConfigParser.ExplicitEncoderKeys {
    /// The key that set `setting` (a ``VideoEncoderSettings`` name as its errors give it), nil when the user did not write it.
    func node(for setting: String) -> ConfigNode? {
        switch setting {
        case "keyint": keyint
        case "profile": profile
        case "bitrate", "maxrate": bitrate
        case "preset": preset
        case "encoder": name
        default: nil
        }
    }

    /// A rendition's keys, each falling back to the camera's `encoder:` key it inherits.
    func inheriting(_ camera: Self) -> Self {
        Self(keyint: keyint ?? camera.keyint, profile: profile ?? camera.profile, bitrate: bitrate ?? camera.bitrate,
             preset: preset ?? camera.preset, name: name ?? camera.name)
    }
}
