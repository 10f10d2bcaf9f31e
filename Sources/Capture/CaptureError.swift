import MediaCore

/// Why a source could not start or stopped delivering, phrased so a user knows what to do.
public enum CaptureError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidSetting(name: String, value: String, hint: String)
    case unknownSource(String)
    case fileNotFound(path: String)
    case fileUnreadable(path: String, reason: String)
    case noVideoStream(path: String)
    case decodeFailed(path: String, reason: String)
    case deviceNotFound(path: String)
    case permissionDenied(path: String)
    case deviceBusy(path: String)
    case notACaptureDevice(path: String, card: String)
    case noSupportedFormat(path: String, offered: [String])
    case deviceError(path: String, operation: String, errno: Int32, message: String)
    case deviceUnplugged(path: String)
    case stalled(path: String, seconds: Double)
    case media(MediaError)
    /// Neither rpicam-vid nor libcamera-vid is on PATH (an `rpicam:N` source).
    case rpicamNotInstalled
    /// A helper program (rpicam-vid) could not start, exited, hung or sent a short frame.
    case childProcessFailed(command: String, reason: String)
    /// The ALSA device does not exist (or the name is wrong).
    case audioDeviceNotFound(device: String, detail: String)
    /// The ALSA device exists but another program holds it.
    case audioDeviceBusy(device: String)
    /// The ALSA device refused a parameter or a read failed.
    case audioDeviceFailed(device: String, operation: String, detail: String)
    /// An audio source was read after it was closed (a stop raced a read).
    case audioSourceClosed(device: String)

    public var description: String {
        switch self {
        case let .invalidSetting(name, value, hint):
            return "invalid \(name) '\(value)': \(hint)"
        case let .unknownSource(text):
            return "unknown source '\(text)': use testpattern, testpattern:busy, file:PATH, a camera like /dev/video0, or a Raspberry Pi CSI camera as rpicam:0"
        case let .fileNotFound(path):
            return "video file \(path) does not exist: check the path"
        case let .fileUnreadable(path, reason):
            return "cannot read \(path) as video (\(reason)): is it a media file FFmpeg understands?"
        case let .noVideoStream(path):
            return "\(path) has no video stream: pick a file with video"
        case let .decodeFailed(path, reason):
            return "decoding \(path) failed: \(reason)"
        case let .deviceNotFound(path):
            return "camera \(path) not found: run `livepush devices` to list cameras"
        case let .permissionDenied(path):
            return "permission denied opening \(path): add the user to the 'video' group (sudo usermod -aG video $USER, then log in again) or run with access to the node"
        case let .deviceBusy(path):
            return "camera \(path) is busy: another program holds it; close it (fuser \(path) shows which)"
        case let .notACaptureDevice(path, card):
            return "\(path) (\(card)) is not a video capture device (a metadata or encoder node?): pick another /dev/video*"
        case let .noSupportedFormat(path, offered):
            return "camera \(path) offers no format livepush can use (offered: \(offered.joined(separator: ", ")))"
        case let .deviceError(path, operation, errno, message):
            return "camera \(path): \(operation) failed: \(message) (errno \(errno))"
        case let .deviceUnplugged(path):
            return "camera \(path) was unplugged: waiting for it to come back"
        case let .stalled(path, seconds):
            return "camera \(path) sent no frame for \(seconds) s: restarting it"
        case let .media(error):
            return error.description
        case .rpicamNotInstalled:
            return "rpicam:N needs rpicam-vid (or libcamera-vid) on PATH: install rpicam-apps (sudo apt install rpicam-apps) on Raspberry Pi OS"
        case let .childProcessFailed(command, reason):
            return "\(command): \(reason): restarting it"
        case let .audioDeviceNotFound(device, detail):
            return "audio device '\(device)' not found (\(detail)): list devices with `livepush devices` or `arecord -L` and pass one of them"
        case let .audioDeviceBusy(device):
            return "audio device '\(device)' is busy: another program is recording from it; stop it or pick another device"
        case let .audioDeviceFailed(device, operation, detail):
            return "audio device '\(device)': \(operation) failed: \(detail)"
        case let .audioSourceClosed(device):
            return "audio source '\(device)' was read after it was closed"
        }
    }
}
