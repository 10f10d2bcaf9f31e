import Engine
import Hummingbird

extension EngineError {
    /// The HTTP status an API call answers with when the engine refuses it.
    var status: HTTPResponse.Status {
        switch self {
        case .unknownCamera, .unknownOutput: return .notFound
        case .badRequest: return .badRequest
        case .conflict: return .conflict
        case .cameraFailed: return .internalServerError
        case .noFrame: return .serviceUnavailable
        }
    }
}
