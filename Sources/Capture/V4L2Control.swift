import CV4L2

/// One camera control (brightness, exposure, focus…) with its range and current value, as
/// `VIDIOC_QUERY_EXT_CTRL`, `VIDIOC_QUERYMENU` and `VIDIOC_G_CTRL` describe it.
public struct V4L2Control: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case integer, boolean, menu, integerMenu, button, integer64, other
    }

    /// A menu entry: its index and label (or number, for integer menus).
    public struct MenuItem: Sendable, Equatable, Codable {
        public var index: Int64
        public var name: String
    }

    public var id: UInt32
    /// The name `v4l2-ctl` uses (`white_balance_temperature_auto`), derived from the driver's label.
    public var key: String
    /// The driver's label ("White Balance Temperature, Auto").
    public var label: String
    public var kind: Kind
    public var minimum: Int64
    public var maximum: Int64
    public var step: UInt64
    public var defaultValue: Int64
    /// nil for write-only controls (buttons) and those G_CTRL cannot read.
    public var value: Int64?
    /// Inactive: the matching auto control is on, so setting this one has no effect yet.
    public var isInactive: Bool
    public var isReadOnly: Bool
    public var menu: [MenuItem]

    /// Derives the `v4l2-ctl` name: lower-case letters and digits, runs of anything else become one
    /// underscore (none leading or trailing).
    public static func key(forLabel label: String) -> String {
        var key = "", pendingUnderscore = false
        for character in label.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber {
                if pendingUnderscore { key.append("_") }
                pendingUnderscore = false
                key.append(character)
            } else if !key.isEmpty {
                pendingUnderscore = true
            }
        }
        return key
    }

    /// Names that older and newer kernels give the same control (UVC renamed several in 5.16–6.1),
    /// so `--set exposure_auto=1` and `--set auto_exposure=1` both work on either.
    static let aliases: [String: UInt32] = [
        "white_balance_automatic": UInt32(V4L2_CID_AUTO_WHITE_BALANCE),
        "white_balance_temperature_auto": UInt32(V4L2_CID_AUTO_WHITE_BALANCE),
        "white_balance_temperature": UInt32(V4L2_CID_WHITE_BALANCE_TEMPERATURE),
        "power_line_frequency": UInt32(V4L2_CID_POWER_LINE_FREQUENCY),
        "auto_exposure": UInt32(V4L2_CID_EXPOSURE_AUTO),
        "exposure_auto": UInt32(V4L2_CID_EXPOSURE_AUTO),
        "exposure_time_absolute": UInt32(V4L2_CID_EXPOSURE_ABSOLUTE),
        "exposure_absolute": UInt32(V4L2_CID_EXPOSURE_ABSOLUTE),
        "focus_automatic_continuous": UInt32(V4L2_CID_FOCUS_AUTO),
        "focus_auto": UInt32(V4L2_CID_FOCUS_AUTO),
        "focus_absolute": UInt32(V4L2_CID_FOCUS_ABSOLUTE),
        "brightness": UInt32(V4L2_CID_BRIGHTNESS),
        "contrast": UInt32(V4L2_CID_CONTRAST),
        "saturation": UInt32(V4L2_CID_SATURATION),
    ]

    /// Splits a `NAME=VALUE` setting as typed after `--set` or `--control`.
    public static func assignment(_ text: String) throws(CaptureError) -> (name: String, value: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw .invalidSetting(name: "control", value: text, hint: "write it as NAME=VALUE, e.g. brightness=140")
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// Whether `name` refers to this control, by its own key or a known alias.
    public func matches(_ name: String) -> Bool {
        let wanted = name.lowercased()
        return wanted == key || Self.aliases[wanted] == id
    }

    /// Parses a value as a user types it: a number, true/false/on/off for booleans, or a menu
    /// label ("50 Hz", case-insensitive) for menus.
    public func parse(_ text: String) throws(CaptureError) -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Int64(trimmed) { return number }
        switch (kind, trimmed.lowercased()) {
        case (.boolean, "true"), (.boolean, "on"), (.boolean, "yes"): return 1
        case (.boolean, "false"), (.boolean, "off"), (.boolean, "no"): return 0
        default: break
        }
        if let item = menu.first(where: { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }) { return item.index }
        throw .invalidSetting(name: key, value: text, hint: "use \(rangeDescription)")
    }

    /// "0…255 step 1", "0 or 1", or the menu entries, for help and errors.
    public var rangeDescription: String {
        switch kind {
        case .boolean: return "0 or 1"
        case .menu, .integerMenu: return menu.map { "\($0.index)=\($0.name)" }.joined(separator: ", ")
        default: return "\(minimum)…\(maximum)" + (step > 1 ? " step \(step)" : "")
        }
    }
}
