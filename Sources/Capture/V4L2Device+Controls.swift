import CV4L2
import Foundation

/// Camera controls: enumeration with NEXT_CTRL, menus, G/S_CTRL, and setting by v4l2-ctl name.
extension V4L2Device {
    /// Every control the driver offers (control-class headings and disabled ones left out), in
    /// driver order. Uses QUERY_EXT_CTRL, or QUERYCTRL on drivers older than Linux 3.19.
    public func controls() throws(CaptureError) -> [V4L2Control] {
        var controls: [V4L2Control] = []
        var nextID = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        for _ in 0..<Self.enumerationLimit {
            guard let query = try queryControl(nextID) else { break }
            nextID = query.id | UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
            guard query.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue, query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { continue }
            controls.append(try describe(query))
        }
        return controls
    }

    /// QUERY_EXT_CTRL (falling back to QUERYCTRL); nil at the end of the enumeration.
    private func queryControl(_ id: UInt32) throws(CaptureError) -> v4l2_query_ext_ctrl? {
        var query = v4l2_query_ext_ctrl()
        query.id = id
        let code = request(lp_VIDIOC_QUERY_EXT_CTRL(), &query)
        if code == 0 { return query }
        if code == EINVAL { return nil }
        guard code == ENOTTY else { throw error(code, operation: "VIDIOC_QUERY_EXT_CTRL") }
        var old = v4l2_queryctrl()
        old.id = id
        let oldCode = request(lp_VIDIOC_QUERYCTRL(), &old)
        if oldCode == EINVAL { return nil }
        guard oldCode == 0 else { throw error(oldCode, operation: "VIDIOC_QUERYCTRL") }
        var converted = v4l2_query_ext_ctrl()
        converted.id = old.id
        converted.type = old.type
        withUnsafeMutableBytes(of: &converted.name) { target in
            withUnsafeBytes(of: old.name) { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(target.count))) }
        }
        converted.minimum = Int64(old.minimum)
        converted.maximum = Int64(old.maximum)
        converted.step = UInt64(max(0, old.step))
        converted.default_value = Int64(old.default_value)
        converted.flags = old.flags
        return converted
    }

    private func describe(_ query: v4l2_query_ext_ctrl) throws(CaptureError) -> V4L2Control {
        let kind: V4L2Control.Kind
        switch query.type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: kind = .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: kind = .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: kind = .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: kind = .integerMenu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: kind = .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: kind = .integer64
        default: kind = .other
        }
        let label = V4L2Text.string(query.name)
        var menu: [V4L2Control.MenuItem] = []
        if kind == .menu || kind == .integerMenu, query.maximum - query.minimum < Int64(Self.enumerationLimit) {
            for index in max(0, query.minimum)...max(0, query.maximum) {
                var item = v4l2_querymenu()
                item.id = query.id
                item.index = UInt32(index)
                guard request(lp_VIDIOC_QUERYMENU(), &item) == 0 else { continue }
                menu.append(.init(index: index, name: kind == .menu ? V4L2Text.string(item.name) : "\(item.value)"))
            }
        }
        let writeOnly = query.flags & UInt32(V4L2_CTRL_FLAG_WRITE_ONLY) != 0
        let readable = !writeOnly && [.integer, .boolean, .menu, .integerMenu].contains(kind)
        return V4L2Control(id: query.id, key: V4L2Control.key(forLabel: label), label: label, kind: kind,
                           minimum: query.minimum, maximum: query.maximum, step: query.step, defaultValue: query.default_value,
                           value: readable ? Int64(try controlValue(query.id)) : nil,
                           isInactive: query.flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0,
                           isReadOnly: query.flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0, menu: menu)
    }

    /// G_CTRL.
    public func controlValue(_ id: UInt32) throws(CaptureError) -> Int32 {
        var control = v4l2_control(id: id, value: 0)
        try perform(lp_VIDIOC_G_CTRL(), "VIDIOC_G_CTRL", &control)
        return control.value
    }

    /// Sets a control by its v4l2-ctl name (or alias) to a typed value; returns the control as
    /// read back, since drivers clamp to range and step.
    @discardableResult
    public func setControl(named name: String, to text: String) throws(CaptureError) -> V4L2Control {
        let all = try controls()
        guard let control = all.first(where: { $0.matches(name) }) else {
            throw .invalidSetting(name: "control", value: name, hint: "this camera has: \(all.map(\.key).joined(separator: ", "))")
        }
        let value = try control.parse(text)
        guard (control.minimum...control.maximum).contains(value), control.kind != .menu || control.menu.contains(where: { $0.index == value }) else {
            throw .invalidSetting(name: control.key, value: text, hint: "use \(control.rangeDescription)")
        }
        guard !control.isReadOnly, let narrow = Int32(exactly: value) else {
            throw .invalidSetting(name: control.key, value: text, hint: "the control is read-only or 64-bit")
        }
        var request = v4l2_control(id: control.id, value: narrow)
        let code = self.request(lp_VIDIOC_S_CTRL(), &request)
        if code == EACCES {
            throw .invalidSetting(name: control.key, value: text, hint: "the camera refuses it now: switch its auto control to manual first")
        }
        guard code == 0 else { throw error(code, operation: "VIDIOC_S_CTRL \(control.key)") }
        return try controls().first { $0.id == control.id } ?? control
    }
}
