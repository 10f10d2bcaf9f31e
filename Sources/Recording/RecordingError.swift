/// Why a recording could not be written, with what to do about it.
public enum RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotCreate(path: String, reason: String)
    /// libavformat (opened on first use) is missing or broken; the reason says what to install.
    case muxerUnavailable(reason: String)
    case writeFailed(path: String, reason: String)
    case unsupportedCodec(String)
    case missingParameterSets

    public var description: String {
        switch self {
        case let .cannotCreate(path, reason):
            return "cannot create recording \(path): \(reason) — check the directory exists and is writable"
        case let .muxerUnavailable(reason):
            return "cannot record: \(reason)"
        case let .writeFailed(path, reason):
            return "writing recording \(path) failed: \(reason) — is the disk full?"
        case let .unsupportedCodec(codec):
            return "recording \(codec) to MP4 is not supported yet: record H.264 or HEVC"
        case .missingParameterSets:
            return "the encoder gave no SPS/PPS before its first keyframe: cannot describe the MP4 track"
        }
    }
}
