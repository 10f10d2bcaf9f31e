/// Makes the capturer for a ``SourceSpec``.
public enum CapturerFactory {
    public static func make(_ spec: SourceSpec, config: CaptureConfig) throws(CaptureError) -> any VideoCapturer {
        switch spec {
        case .testPattern:
            return TestPatternCapturer(source: TestPatternSource(), config: config)
        case let .file(path, loops):
            return FileCapturer(source: FileSource(path: path, loops: loops), config: config)
        case let .camera(path):
            throw .deviceNotFound(path: path)
        }
    }
}
