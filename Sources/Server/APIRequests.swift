import Engine
import Capture
import Foundation
import Hummingbird
import MediaCore
import Overlay

/// JSON bodies the API accepts (see web/openapi.yaml).
package struct BitrateRequest: Decodable {
    /// `2500k`, `2.5M`, or a number of bits per second.
    package let bitrate: String
}

package struct SourceRequest: Decodable {
    /// `testpattern`, `file:PATH`, `/dev/videoN`, `camera:INDEX`, `camera:NAME`.
    package let source: String
}

/// `POST /api/cameras/{id}/overlay`: the fields to change; `text` is required ("" hides the overlay).
package struct OverlayRequest: Decodable {
    let text: String
    let position: String?
    let size: Int?
    let color: String?
    let background: String?
    let backgroundOpacity: Double?

    enum CodingKeys: String, CodingKey {
        case text, position, size, color, background
        case backgroundOpacity = "background_opacity"
    }

    /// `current` (or the defaults) with this request's fields applied.
    package func applied(to current: OverlaySettings?) throws(EngineError) -> OverlaySettings {
        var settings = current ?? OverlaySettings(text: text)
        settings.text = text
        if let position {
            guard let value = OverlaySettings.Position(rawValue: position) else {
                throw .badRequest("position '\(position)' must be one of \(OverlaySettings.Position.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            settings.position = value
        }
        if let size { settings.size = size }
        for (name, value) in [("color", color), ("background", background)] {
            guard let value else { continue }
            guard let parsed = YUVColor(parsing: value) else { throw .badRequest("\(name) '\(value)' must be #RRGGBB or white, black, red, green, blue, yellow") }
            if name == "color" { settings.color = parsed } else { settings.background = parsed }
        }
        if let backgroundOpacity { settings.backgroundOpacity = backgroundOpacity }
        guard text.utf8.count <= 200 else { throw .badRequest("text is longer than 200 bytes") }
        return settings
    }
}

/// The overlay a camera draws now.
struct OverlayResponse: ResponseEncodable {
    let camera: String
    let text: String
    let position: String
    let size: Int
    let backgroundOpacity: Double

    init(camera: String, settings: OverlaySettings?) {
        self.camera = camera
        text = settings?.text ?? ""
        position = (settings?.position ?? .topLeft).rawValue
        size = settings?.size ?? 0
        backgroundOpacity = settings?.backgroundOpacity ?? 0
    }
}

package struct ControlRequest: Decodable {
    package let name: String
    package let value: String
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
