import Engine
import Capture
import Foundation
import Hummingbird

/// JSON bodies the API accepts (see web/openapi.yaml).
struct BitrateRequest: Decodable {
    /// `2500k`, `2.5M`, or a number of bits per second.
    let bitrate: String
}

struct SourceRequest: Decodable {
    /// `testpattern`, `file:PATH`, `/dev/videoN`, `camera:INDEX`, `camera:NAME`.
    let source: String
}

struct ControlRequest: Decodable {
    let name: String
    let value: String
}

/// A short JSON acknowledgement: `{"ok": true, "message": "…"}`.
struct Acknowledgement: ResponseEncodable {
    var ok = true
    var message: String
}

extension StatusReport: ResponseEncodable {}
extension CameraReport: ResponseEncodable {}
/// `GET /api/cameras/{id}/controls`.
struct ControlsResponse: ResponseEncodable {
    let camera: String
    let controls: [V4L2Control]
}

/// `POST /api/cameras/{id}/controls`: the control after setting it.
struct ControlResponse: ResponseEncodable {
    let camera: String
    let control: V4L2Control
}

extension Request {
    /// Decodes a small JSON body with Foundation's decoder so a malformed one surfaces as a
    /// `DecodingError` that ``JSONErrorMiddleware`` explains (missing key, wrong type, not JSON).
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int = 64 * 1024) async throws -> T {
        let buffer = try await body.collect(upTo: limit)
        return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
    }
}
