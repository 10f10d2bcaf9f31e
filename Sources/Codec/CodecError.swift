import LibAV
import MediaCore

/// What went wrong in the codec layer, with the detail a user needs to fix it.
public enum CodecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A setting is out of range; `setting` is the name the user wrote (`bitrate`, `width`, …).
    case invalidSetting(setting: String, value: String, reason: String)
    /// No encoder of that name can be opened on this machine; `available` lists those that can.
    case encoderNotAvailable(name: String, available: [String])
    /// The encoder exists but refused to open with these settings.
    case encoderOpenFailed(name: String, error: FFmpegError)
    /// A libavcodec call failed while running.
    case ffmpeg(FFmpegError)
    /// A MediaCore transform (rotation, scaling) failed.
    case media(MediaError)
    /// A bitstream structure ended before its last field.
    case truncatedBitstream(structure: String)
    /// A bitstream structure holds a value the standard does not allow.
    case malformedBitstream(structure: String, detail: String)
    /// The encoder was used after it was closed.
    case closed

    public var description: String {
        switch self {
        case let .invalidSetting(setting, value, reason):
            return "setting '\(setting)' = \(value) is invalid: \(reason)"
        case let .encoderNotAvailable(name, available):
            let list = available.isEmpty ? "none" : available.joined(separator: ", ")
            return "encoder '\(name)' is not available on this machine (setting 'encoder'); available: \(list)"
        case let .encoderOpenFailed(name, error):
            return "encoder '\(name)' failed to open: \(error); check the settings or pick another encoder"
        case let .ffmpeg(error):
            return "libavcodec: \(error)"
        case let .media(error):
            return "frame transform: \(error)"
        case let .truncatedBitstream(structure):
            return "\(structure) is truncated"
        case let .malformedBitstream(structure, detail):
            return "\(structure) is malformed: \(detail)"
        case .closed:
            return "used after close"
        }
    }
}
