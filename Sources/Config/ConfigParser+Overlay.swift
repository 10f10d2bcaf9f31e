import MediaCore
import Overlay

/// A camera's `overlay:` block: `text` (required; strftime fields, `%L` milliseconds, `{camera}`),
/// `position`, `size`, `color`, `background`, `background_opacity`, `font`. The font is opened
/// here, so a missing file fails at start naming the line.
extension ConfigParser {
    static let overlayKeys = ["text", "position", "size", "color", "background", "background_opacity", "font"]

    func parseOverlay(_ node: ConfigNode) throws(ConfigError) -> OverlaySettings {
        let map = try node.mapping(allowed: Self.overlayKeys)
        var settings = OverlaySettings(text: try map.required("text").string())
        if let position = map["position"] {
            let name = try position.choice(OverlaySettings.Position.allCases.map(\.rawValue))
            settings.position = OverlaySettings.Position(rawValue: name) ?? .topLeft
        }
        if let size = map["size"] { settings.size = try size.int(in: 8...512) }
        if let color = map["color"] { settings.color = try yuvColor(color) }
        if let background = map["background"] { settings.background = try yuvColor(background) }
        if let opacity = map["background_opacity"] { settings.backgroundOpacity = try opacity.double(in: 0...1) }
        if let font = map["font"] { settings.fontPath = try font.string() }
        do { try TextOverlay.validate(settings) } catch { throw (map["font"] ?? node).error("\(error)") }
        return settings
    }

    private func yuvColor(_ node: ConfigNode) throws(ConfigError) -> YUVColor {
        let text = try node.string()
        guard let color = YUVColor(parsing: text) else { throw node.error("'\(text)' must be #RRGGBB or white, black, red, green, blue, yellow") }
        return color
    }
}
