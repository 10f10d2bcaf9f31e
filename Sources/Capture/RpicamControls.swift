import Foundation

/// The camera controls a CSI camera offers through rpicam-vid, and how each becomes its option.
///
/// rpicam-vid takes controls only on its command line, so a change restarts it (``RpicamSource``
/// is re-created with the new values). They are listed in the same shape as V4L2 controls
/// (``V4L2Control``) so the API's controls route and the dashboard treat both alike: rpicam's
/// fractional values (brightness -1.0…1.0, contrast 1.0 = normal, lens position in dioptres) are
/// offered as integers in hundredths, and its named modes as menus.
public enum RpicamControls {
    /// One control: its key (as in the config's `controls:` and the API), the rpicam-vid option,
    /// and its range or menu.
    public struct Definition: Sendable, Equatable {
        public var key: String
        public var label: String
        public var option: String
        /// Integer range in hundredths of rpicam's value; nil for a menu.
        public var range: ClosedRange<Int64>?
        /// The names rpicam-vid accepts, in menu order; empty for a number.
        public var menu: [String]
        public var defaultValue: Int64
    }

    public static let definitions: [Definition] = [
        Definition(key: "brightness", label: "Brightness", option: "--brightness", range: -100...100, menu: [], defaultValue: 0),
        Definition(key: "contrast", label: "Contrast", option: "--contrast", range: 0...1000, menu: [], defaultValue: 100),
        Definition(key: "saturation", label: "Saturation", option: "--saturation", range: 0...1000, menu: [], defaultValue: 100),
        Definition(key: "sharpness", label: "Sharpness", option: "--sharpness", range: 0...1600, menu: [], defaultValue: 100),
        Definition(key: "exposure", label: "Exposure Mode", option: "--exposure", range: nil,
                   menu: ["normal", "sport", "short", "long"], defaultValue: 0),
        Definition(key: "awb", label: "White Balance Mode", option: "--awb", range: nil,
                   menu: ["auto", "incandescent", "tungsten", "fluorescent", "indoor", "daylight", "cloudy"], defaultValue: 0),
        Definition(key: "autofocus_mode", label: "Autofocus Mode", option: "--autofocus-mode", range: nil,
                   menu: ["default", "manual", "auto", "continuous"], defaultValue: 0),
        Definition(key: "lens_position", label: "Lens Position (1/100 dioptre)", option: "--lens-position", range: 0...3200, menu: [], defaultValue: 100),
        Definition(key: "hdr", label: "HDR", option: "--hdr", range: nil, menu: ["off", "auto", "sensor", "single-exp"], defaultValue: 0),
    ]

    /// The definition for a key; `autofocus-mode` and `lens-position` (rpicam's spelling) work too.
    public static func definition(for key: String) -> Definition? {
        let normalized = key.lowercased().replacingOccurrences(of: "-", with: "_")
        return definitions.first { $0.key == normalized }
    }

    /// Checks a value for a control and returns it as stored: the menu name or the integer.
    /// A menu takes a name or its index.
    public static func validate(key: String, value: String) throws(CaptureError) -> (key: String, value: String) {
        guard let definition = definition(for: key) else {
            throw .invalidSetting(name: "control", value: key,
                                  hint: "rpicam cameras offer \(definitions.map(\.key).joined(separator: ", "))")
        }
        let text = value.trimmingCharacters(in: .whitespaces).lowercased()
        if let range = definition.range {
            guard let number = Int64(text), range.contains(number) else {
                throw .invalidSetting(name: definition.key, value: value,
                                      hint: "give an integer from \(range.lowerBound) to \(range.upperBound) (hundredths of rpicam-vid's \(definition.option))")
            }
            return (definition.key, String(number))
        }
        if definition.menu.contains(text) { return (definition.key, text) }
        if let index = Int(text), definition.menu.indices.contains(index) { return (definition.key, definition.menu[index]) }
        throw .invalidSetting(name: definition.key, value: value, hint: "use one of \(definition.menu.joined(separator: ", "))")
    }

    /// rpicam-vid options for the given controls, in the fixed order of ``definitions``.
    /// Values must have passed ``validate(key:value:)``.
    public static func arguments(for controls: [String: String]) throws(CaptureError) -> [String] {
        var stored: [String: String] = [:]
        for (key, value) in controls {
            let checked = try validate(key: key, value: value)
            stored[checked.key] = checked.value
        }
        var arguments: [String] = []
        for definition in definitions {
            guard let value = stored[definition.key] else { continue }
            if definition.range != nil, let number = Int64(value) {
                arguments += [definition.option, hundredths(number)]
            } else {
                arguments += [definition.option, value]
            }
        }
        return arguments
    }

    /// `-25` → `-0.25`, `150` → `1.50`: rpicam-vid parses these as floats.
    static func hundredths(_ number: Int64) -> String {
        let sign = number < 0 ? "-" : ""
        let magnitude = number.magnitude
        let fraction = magnitude % 100
        return "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// The controls with their current values, in the shape of V4L2 controls.
    public static func list(current controls: [String: String]) -> [V4L2Control] {
        var stored: [String: String] = [:]
        for (key, value) in controls {
            if let checked = try? validate(key: key, value: value) { stored[checked.key] = checked.value }
        }
        return definitions.enumerated().map { offset, definition in
            let value: Int64
            if let text = stored[definition.key] {
                value = definition.range != nil ? (Int64(text) ?? definition.defaultValue)
                    : Int64(definition.menu.firstIndex(of: text) ?? Int(definition.defaultValue))
            } else {
                value = definition.defaultValue
            }
            let menu = definition.menu.enumerated().map { V4L2Control.MenuItem(index: Int64($0.offset), name: $0.element) }
            return V4L2Control(id: UInt32(offset), key: definition.key, label: definition.label,
                               kind: definition.range == nil ? .menu : .integer,
                               minimum: definition.range?.lowerBound ?? 0,
                               maximum: definition.range?.upperBound ?? Int64(definition.menu.count - 1),
                               step: 1, defaultValue: definition.defaultValue, value: value,
                               isInactive: false, isReadOnly: false, menu: menu)
        }
    }
}
