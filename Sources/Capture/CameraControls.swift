/// A camera's controls (brightness, exposure, focus…), whichever way its source takes them: a
/// V4L2 camera's are read and set on the device at once; a CSI camera's (``RpicamControls``) are
/// kept here, since rpicam-vid takes them only at start (whoever runs it restarts it with
/// ``rpicam``). Other sources (a file, the test pattern) have none.
public struct CameraControls: Sendable, Equatable {
    /// The CSI camera's values, by rpicam key: what rpicam-vid starts with.
    public private(set) var rpicam: [String: String]

    public init(rpicam: [String: String]) { self.rpicam = rpicam }

    /// The controls of `source` with their current values; nil when it has none.
    public func list(for source: SourceSpec) throws(CaptureError) -> [V4L2Control]? {
        switch source {
        case .rpicam: return RpicamControls.list(current: rpicam)
        case let .camera(selector): return try Self.withDevice(selector) { device throws(CaptureError) in try device.controls() }
        case .testPattern, .busyTestPattern, .driftingTestPattern, .file: return nil
        }
    }

    /// Sets `name` (a v4l2-ctl or rpicam name) to `value` on `source`: on a V4L2 device now; for a
    /// CSI camera in ``rpicam``, for rpicam-vid's restart. Returns the control as set, nil when the
    /// source has no controls.
    public mutating func set(_ name: String, to value: String, for source: SourceSpec) throws(CaptureError) -> V4L2Control? {
        switch source {
        case .rpicam:
            let checked = try RpicamControls.validate(key: name, value: value)
            rpicam[checked.key] = checked.value
            return RpicamControls.list(current: rpicam).first { $0.key == checked.key }
        case let .camera(selector):
            return try Self.withDevice(selector) { device throws(CaptureError) in try device.setControl(named: name, to: value) }
        case .testPattern, .busyTestPattern, .driftingTestPattern, .file: return nil
        }
    }

    /// Opens the camera `selector` names (a path, `camera:INDEX`, `camera:NAME`) for `body`, then closes it.
    public static func withDevice<T>(_ selector: String, _ body: (V4L2Device) throws(CaptureError) -> T) throws(CaptureError) -> T {
        let device = try V4L2Device(path: V4L2Discovery.resolve(selector))
        defer { device.close() }
        return try body(device)
    }
}
