/// `run --switch-to`: swaps the running camera for another once, as a "switch camera" button
/// does, without stopping the pipeline (see ``CameraCapturer/switchSource(to:)``).
public final class CameraSwitch {
    private let capturer: CameraCapturer
    private let target: V4L2Source
    private var done = false

    /// Throws when the running source or the target is not a camera.
    public init(capturer: CameraCapturer, to selector: String, stallTimeoutSeconds: Double) throws {
        guard capturer.currentSource is V4L2Source else {
            throw CaptureError.invalidSetting(name: "switch-to", value: selector, hint: "switching needs a camera --source")
        }
        guard case let .camera(target) = try SourceSpec(parsing: selector) else {
            throw CaptureError.invalidSetting(name: "switch-to", value: selector, hint: "give a camera: /dev/videoN, camera:INDEX or camera:NAME")
        }
        self.capturer = capturer
        self.target = V4L2Source(selector: target, stallTimeoutSeconds: stallTimeoutSeconds)
    }

    /// The camera it switches to.
    public var targetSelector: String { target.selector }

    /// Switches the first time it is called (returning true); later calls do nothing.
    @discardableResult
    public func perform() -> Bool {
        guard !done else { return false }
        done = true
        capturer.switchSource(to: target)
        return true
    }
}
