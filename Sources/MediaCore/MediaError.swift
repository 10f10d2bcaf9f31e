/// What went wrong in the media core, with the detail a user needs to fix it.
public enum MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidDimensions(width: Int, height: Int)
    case oddDimensions(format: PixelFormat, width: Int, height: Int)
    case strideTooSmall(plane: String, stride: Int, minimum: Int)
    case bufferTooSmall(format: PixelFormat, needed: Int, available: Int)
    case sizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    case corruptJPEG(bytes: Int)
    case invalidRotation(degrees: Int)
    case invalidCrop(x: Int, y: Int, width: Int, height: Int, sourceWidth: Int, sourceHeight: Int)
    case frameTooSmallForCode(width: Int, minimumWidth: Int)
    case conversionFailed(operation: String, code: Int32)
    case poolExhausted(capacity: Int)
    /// An audio format livepush cannot capture or encode (`setting` is the name the user wrote).
    case invalidAudioFormat(setting: String, value: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidDimensions(width, height):
            return "invalid frame size \(width)x\(height): width and height must be 1…\(I420Buffer.maximumDimension)"
        case let .oddDimensions(format, width, height):
            return "\(format) needs an even width\(format.needsEvenHeight ? " and height" : ""), got \(width)x\(height): pick an even size"
        case let .strideTooSmall(plane, stride, minimum):
            return "\(plane) stride \(stride) is smaller than the row (\(minimum) bytes): pass the buffer's real bytes-per-line"
        case let .bufferTooSmall(format, needed, available):
            return "\(format) buffer holds \(available) bytes but the size and stride need \(needed): the frame is truncated"
        case let .sizeMismatch(ew, eh, w, h):
            return "destination is \(w)x\(h) but the source is \(ew)x\(eh): scale first or allocate a matching buffer"
        case let .corruptJPEG(bytes):
            return "MJPEG frame of \(bytes) bytes could not be decoded (corrupt or truncated): frame dropped"
        case let .invalidRotation(degrees):
            return "rotation \(degrees)° is not supported: use 0, 90, 180 or 270"
        case let .invalidCrop(x, y, w, h, sw, sh):
            return "crop \(w)x\(h)+\(x)+\(y) does not fit in \(sw)x\(sh): keep the rectangle inside the frame (even offsets)"
        case let .frameTooSmallForCode(width, minimumWidth):
            return "frame width \(width) is too small for the frame code: it needs at least \(minimumWidth) pixels"
        case let .conversionFailed(operation, code):
            return "libyuv \(operation) failed with code \(code)"
        case let .poolExhausted(capacity):
            return "all \(capacity) pooled frame buffers are in use: a consumer is holding frames too long"
        case let .invalidAudioFormat(setting, value, reason):
            return "audio setting '\(setting)' = \(value) is invalid: \(reason)"
        }
    }
}
