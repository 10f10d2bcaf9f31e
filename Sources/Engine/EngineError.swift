/// What running cameras and their outputs can fail with; each case carries the sentence a user
/// needs (which camera, which output, what to do instead). The HTTP server maps them to statuses.
public enum EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCamera(String)
    case unknownOutput(camera: String, output: String)
    case badRequest(String)
    /// The request is fine but the camera's state does not allow it (no controls on a test pattern).
    case conflict(String)
    case cameraFailed(camera: String, reason: String)
    case noFrame(camera: String, seconds: Double)

    public var description: String {
        switch self {
        case let .unknownCamera(id): return "no camera '\(id)'; GET /api/cameras lists them"
        case let .unknownOutput(camera, output): return "camera '\(camera)' has no output '\(output)'"
        case let .badRequest(message), let .conflict(message): return message
        case let .cameraFailed(camera, reason): return "camera '\(camera)' failed: \(reason)"
        case let .noFrame(camera, seconds): return "camera '\(camera)' delivered no frame within \(seconds) s"
        }
    }
}
