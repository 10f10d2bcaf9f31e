
/// Makes the ``FrameSource`` for a ``SourceSpec`` (the capturer around it is ``CameraCapturer``).
public enum SourceFactory {
    public static func make(_ spec: SourceSpec, stallTimeoutSeconds: Double, controls: [String: String]) -> any FrameSource {
        switch spec {
        case .testPattern, .busyTestPattern: return TestPatternSource(busy: spec == .busyTestPattern)
        case let .driftingTestPattern(driftPPM): return TestPatternSource(driftPPM: driftPPM)
        case let .file(path, loops): return FileSource(path: path, loops: loops)
        case let .camera(selector): return V4L2Source(selector: selector, stallTimeoutSeconds: stallTimeoutSeconds, controls: controls)
        case let .rpicam(index): return RpicamSource(cameraIndex: index, stallTimeoutSeconds: stallTimeoutSeconds, controls: controls)
        }
    }
}
