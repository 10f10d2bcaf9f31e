import MediaCore

/// What a camera's text overlay shows and where: the config's `overlay:` block, changed live through
/// the API. A value type: the overlay swaps in a whole new one between two frames.
public struct OverlaySettings: Sendable, Equatable {
    /// Corner the text box sits in, `margin` pixels from the edges.
    public enum Position: String, Sendable, CaseIterable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }

    /// The template: strftime fields (`%Y-%m-%d %H:%M:%S`, local time), `%L` for milliseconds,
    /// `{camera}` for the camera's id. Empty: no overlay drawn.
    public var text: String
    public var position: Position
    /// Height of the text in pixels (the font's em size).
    public var size: Int
    public var color: YUVColor
    public var background: YUVColor
    /// 0 (no box) to 1 (solid).
    public var backgroundOpacity: Double
    /// A TrueType/OpenType font file.
    public var fontPath: String

    public static let defaultFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    public init(text: String, position: Position = .topLeft, size: Int = 24, color: YUVColor = .white,
                background: YUVColor = .black, backgroundOpacity: Double = 0.6, fontPath: String = OverlaySettings.defaultFont) {
        self.text = text
        self.position = position
        self.size = size
        self.color = color
        self.background = background
        self.backgroundOpacity = backgroundOpacity
        self.fontPath = fontPath
    }
}

extension YUVColor {
    /// BT.601 limited range from 8-bit RGB, for `#RRGGBB` colours in the config.
    public init(red: Int, green: Int, blue: Int) {
        let (r, g, b) = (Double(red), Double(green), Double(blue))
        let y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
        let u = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
        let v = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255
        self.init(y: UInt8(y.rounded().clamped(16, 235)), u: UInt8(u.rounded().clamped(16, 240)), v: UInt8(v.rounded().clamped(16, 240)))
    }

    /// `#RRGGBB`, or one of white, black, red, green, blue, yellow; nil for anything else.
    public init?(parsing text: String) {
        let named = ["white": (255, 255, 255), "black": (0, 0, 0), "red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0)]
        if let (r, g, b) = named[text.lowercased()] {
            self.init(red: r, green: g, blue: b)
            return
        }
        guard text.count == 7, text.hasPrefix("#"), let value = Int(text.dropFirst(), radix: 16) else { return nil }
        self.init(red: value >> 16 & 0xFF, green: value >> 8 & 0xFF, blue: value & 0xFF)
    }
}

private extension Double {
    func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}
