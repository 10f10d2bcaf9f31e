import Hummingbird

/// What API calls and serving can fail with; each case maps to an HTTP status and carries the
/// sentence a user needs (which camera, which output, what to send instead).
public enum ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCamera(String)
    case unknownOutput(camera: String, output: String)
    case badRequest(String)
    /// The request is fine but the camera's state does not allow it (no controls on a test pattern).
    case conflict(String)
    /// An output type the config names but this build does not contain.
    case outputNotAvailable(kind: String, camera: String, output: String)
    case cameraFailed(camera: String, reason: String)
    case noFrame(camera: String, seconds: Double)

    public var description: String {
        switch self {
        case let .unknownCamera(id): return "no camera '\(id)'; GET /api/cameras lists them"
        case let .unknownOutput(camera, output): return "camera '\(camera)' has no output '\(output)'"
        case let .badRequest(message), let .conflict(message): return message
        case let .outputNotAvailable(kind, camera, output):
            return "camera '\(camera)' output '\(output)': \(kind) output is not available in this build; remove it from the config or use record"
        case let .cameraFailed(camera, reason): return "camera '\(camera)' failed: \(reason)"
        case let .noFrame(camera, seconds): return "camera '\(camera)' delivered no frame within \(seconds) s"
        }
    }

    var status: HTTPResponse.Status {
        switch self {
        case .unknownCamera, .unknownOutput: return .notFound
        case .badRequest: return .badRequest
        case .conflict, .outputNotAvailable: return .conflict
        case .cameraFailed: return .internalServerError
        case .noFrame: return .serviceUnavailable
        }
    }
}
