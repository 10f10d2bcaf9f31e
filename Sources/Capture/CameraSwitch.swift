/// `run --switch-to`: swaps the running camera for another once, as a "switch camera" button
/// does, without stopping the pipeline (see ``ThreadedCapturer/switchSource(to:)``).
public final class CameraSwitch {
    private let capturer: V4L2Capturer
    private let target: V4L2Source
    private var done = false

    /// Throws when the running source or the target is not a camera.
    public init(capturer: any VideoCapturer, to selector: String, stallTimeoutSeconds: Double) throws {
        guard let camera = capturer as? V4L2Capturer else { throw CaptureError.invalidSetting(name: "switch-to", value: selector, hint: "switching needs a camera --source") }
        guard case let .camera(target) = try SourceSpec(parsing: selector) else {
            throw CaptureError.invalidSetting(name: "switch-to", value: selector, hint: "give a camera: /dev/videoN, camera:INDEX or camera:NAME")
        }
        self.capturer = camera
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
