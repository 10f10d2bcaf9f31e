import Capture

extension LivepushConfig {
    /// What `livepush serve` runs without `--config`: the first camera found, else the test
    /// pattern, 720p30 with libx264, the dashboard on 127.0.0.1:8080, no outputs to configure.
    public static func embeddedDefault(firstCamera: String?) -> LivepushConfig {
        let source: SourceSpec = firstCamera.map { .camera($0) } ?? .testPattern
        // The built-in WHEP viewer makes the dashboard's preview play with no media server.
        var camera = CameraConfig(id: "cam0", source: source, encoder: EncoderConfig())
        camera.outputs = [OutputConfig(id: "whep", settings: .whep(maxViewers: OutputDefaults.whepMaxViewers))]
        return LivepushConfig(cameras: [camera])
    }
}
