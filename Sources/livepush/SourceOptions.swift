import ArgumentParser
import Capture
import MediaCore

/// The options every command that takes a video source shares.
struct SourceOptions: ParsableArguments {
    @Option(help: "testpattern (testpattern:busy: with grain that uses the whole bitrate), file:PATH (file:PATH?loop to repeat), or a camera: /dev/video0, a /dev/v4l/by-id name, camera:INDEX or camera:NAME, or a Raspberry Pi CSI camera as rpicam:INDEX (see `livepush devices`).")
    var source: String = "testpattern"

    @Option(help: "Capture size, WIDTHxHEIGHT.")
    var size: String = "1280x720"

    @Option(help: "Frames per second.")
    var fps: Double = 30

    @Option(help: "Rotation metadata in degrees: 0, 90, 180 or 270.")
    var rotation: Int = 0

    @Flag(help: "Mirror left-right (selfie view).")
    var mirror = false

    @Option(help: "Restart a camera that sends no frame for this many seconds.")
    var stallTimeout: Double = V4L2Source.defaultStallTimeoutSeconds

    @Option(name: .customLong("control"), help: "Camera control NAME=VALUE set at every open, also after a replug (repeatable; see `livepush controls`).")
    var controls: [String] = []

    func spec() throws -> SourceSpec { try SourceSpec(parsing: source) }

    func captureConfig() throws -> CaptureConfig {
        let config = CaptureConfig(size: try VideoSize(parsing: size), framesPerSecond: fps,
                                   rotation: try VideoRotation(degrees: rotation), mirror: mirror)
        try config.validate()
        return config
    }

    /// The camera's capture settings as config keys (`livepush stream` runs them as a config).
    func describe(into camera: inout ConfigDraft.Mapping) throws {
        camera.set("source", source)
        camera.set("size", size)
        camera.set("fps", "\(fps)")
        camera.set("rotation", "\(rotation)")
        if mirror { camera.set("mirror", "true") }
        camera.set("stall_timeout", "\(stallTimeout)")
        var controlMap = ConfigDraft.Mapping()
        for setting in controls {
            let (name, value) = try V4L2Control.assignment(setting)
            controlMap.set(name, value)
        }
        camera.set("controls", controlMap)
    }

    /// The capturer `stream` and `serve` run for a camera (``SourceFactory`` → ``CameraCapturer``),
    /// so `run` and `snapshot` see a source as they do. `noSignal`: what a missing or lost camera
    /// becomes, the no-signal card (`run`) or the camera's error (`snapshot`).
    func makeCapturer(noSignal: ResilientSource.NoSignal) throws -> CameraCapturer {
        var cameraControls: [String: String] = [:]
        for setting in controls {
            let (name, value) = try V4L2Control.assignment(setting)
            cameraControls[name] = value
        }
        return CameraCapturer(source: SourceFactory.make(try spec(), stallTimeoutSeconds: stallTimeout, controls: cameraControls),
                              config: try captureConfig(), noSignal: noSignal)
    }
}
