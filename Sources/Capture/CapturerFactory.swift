/// Makes the capturer for a ``SourceSpec``.
public enum CapturerFactory {
    /// `cameraStallTimeoutSeconds`: how long a camera may send nothing before it is restarted;
    /// `cameraControls`: v4l2-ctl names and values applied at every open of a camera (rpicam-vid
    /// options for `rpicam:N`, see ``RpicamControls``).
    public static func make(_ spec: SourceSpec, config: CaptureConfig,
                            cameraStallTimeoutSeconds: Double = V4L2Source.defaultStallTimeoutSeconds,
                            cameraControls: [String: String] = [:]) throws(CaptureError) -> any VideoCapturer {
        switch spec {
        case .testPattern, .busyTestPattern:
            return TestPatternCapturer(source: TestPatternSource(busy: spec == .busyTestPattern), config: config)
        case let .file(path, loops):
            return FileCapturer(source: FileSource(path: path, loops: loops), config: config)
        case let .camera(selector):
            return V4L2Capturer(source: V4L2Source(selector: selector, stallTimeoutSeconds: cameraStallTimeoutSeconds, controls: cameraControls), config: config)
        case let .rpicam(index):
            // A child process that can die or hang: shown through the no-signal card while it restarts.
            return CameraCapturer(source: RpicamSource(cameraIndex: index, stallTimeoutSeconds: cameraStallTimeoutSeconds, controls: cameraControls),
                                  config: config)
        }
    }
}
