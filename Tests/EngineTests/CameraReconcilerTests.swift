import Capture
import Config
import Engine
import MediaCore
import Overlay
import Testing

/// A reload's plan for one camera, from its old and new config alone: no camera, process or socket.
@Suite struct CameraReconcilerTests {
    typealias Action = CameraReconciler.Action

    static func record(_ id: String, _ path: String = "/tmp/x.mp4") -> OutputConfig {
        OutputConfig(id: id, settings: .record(path: path, segmentSeconds: nil, retentionSeconds: nil))
    }

    static let rtmp = OutputConfig(id: "rtmp", settings: .rtmp(url: "rtmp://127.0.0.1/live", streamKey: Secret(origin: "inline", value: "key"), preset: nil))

    static let camera = CameraConfig(id: "cam0", source: .testPattern, encoder: EncoderConfig(bitrateBitsPerSecond: 2_000_000),
                                     outputs: [record("record"), rtmp])

    static func renditions(_ camera: CameraConfig, sdBitrate: Int = 800_000) -> CameraConfig {
        var camera = camera
        var sd = camera.encoder
        sd.bitrateBitsPerSecond = sdBitrate
        camera.renditions = [RenditionConfig(name: "hd", size: camera.size, framesPerSecond: camera.framesPerSecond, encoder: camera.encoder),
                             RenditionConfig(name: "sd", size: VideoSize(width: 640, height: 360), framesPerSecond: 15, encoder: sd)]
        return camera
    }

    @Test func nothingChangedKeepsEveryOutputAndDoesNothingElse() {
        #expect(CameraReconciler.actions(from: Self.camera, to: Self.camera) == [.keepOutput(id: "record"), .keepOutput(id: "rtmp")])
    }

    @Test func anAddedOutputStartsAndTheOthersKeepRunning() {
        var new = Self.camera
        new.outputs.insert(Self.record("second", "/tmp/second.mp4"), at: 1)
        #expect(CameraReconciler.actions(from: Self.camera, to: new)
            == [.keepOutput(id: "record"), .startOutput(Self.record("second", "/tmp/second.mp4")), .keepOutput(id: "rtmp")])
    }

    @Test func aRemovedOutputStopsFirst() {
        var new = Self.camera
        new.outputs.removeFirst()
        #expect(CameraReconciler.actions(from: Self.camera, to: new) == [.stopOutput(id: "record"), .keepOutput(id: "rtmp")])
    }

    /// New settings under an id (another file, another rendition, `start: false`) replace that
    /// output alone.
    @Test(arguments: [
        OutputConfig(id: "record", settings: .record(path: "/tmp/y.mp4", segmentSeconds: nil, retentionSeconds: nil)),
        OutputConfig(id: "record", settings: .record(path: "/tmp/x.mp4", segmentSeconds: 60, retentionSeconds: nil)),
        OutputConfig(id: "record", settings: .record(path: "/tmp/x.mp4", segmentSeconds: nil, retentionSeconds: nil), startsWithCamera: false),
    ])
    func aChangedOutputIsReplacedInPlace(changed: OutputConfig) {
        var new = Self.camera
        new.outputs[0] = changed
        #expect(CameraReconciler.actions(from: Self.camera, to: new) == [.replaceOutput(changed), .keepOutput(id: "rtmp")])
    }

    @Test func outputsStopThenFollowTheNewOrder() {
        var new = Self.camera
        new.outputs = [Self.record("third", "/tmp/third.mp4"), Self.rtmp]
        new.outputs[1].adaptiveBitrate = true
        #expect(CameraReconciler.actions(from: Self.camera, to: new)
            == [.stopOutput(id: "record"), .startOutput(Self.record("third", "/tmp/third.mp4")), .replaceOutput(new.outputs[1])])
    }

    /// A single encode changes its bitrate on the running encoder; the overlay changes from the next frame.
    @Test func bitrateAndOverlayChangeInPlace() throws {
        var new = Self.camera
        new.encoder.bitrateBitsPerSecond = 700_000
        new.overlay = OverlaySettings(text: "%H:%M:%S")
        #expect(CameraReconciler.actions(from: Self.camera, to: new)
            == [.keepOutput(id: "record"), .keepOutput(id: "rtmp"), .setBitrate(bitsPerSecond: 700_000), .updateOverlay(new.overlay)])
        #expect(CameraReconciler.actions(from: new, to: Self.camera).suffix(2) == [.setBitrate(bitsPerSecond: 2_000_000), .updateOverlay(nil)])
    }

    /// Anything else the encoder opens with needs a new encode: the camera restarts, whatever else changed.
    @Test func anEncoderChangeRestartsTheCamera() {
        var new = Self.camera
        new.encoder.preset = "ultrafast"
        new.outputs.removeAll()
        #expect(CameraReconciler.actions(from: Self.camera, to: new) == [.restartCamera(because: [.encoder])])
    }

    @Test func aSourceChangeRestartsTheCamera() {
        var new = Self.camera
        new.source = .camera("/dev/video2")
        #expect(CameraReconciler.actions(from: Self.camera, to: new) == [.restartCamera(because: [.source])])
        new = Self.camera
        new.sourceProtocols = ["file", "http"]
        #expect(CameraReconciler.actions(from: Self.camera, to: new) == [.restartCamera(because: [.source])])
    }

    @Test func captureSettingsRestartTheCamera() {
        var new = Self.camera
        new.size = VideoSize(width: 640, height: 480)
        new.controls = ["brightness": "140"]
        new.onDemand = OnDemandConfig()
        #expect(CameraReconciler.actions(from: Self.camera, to: new) == [.restartCamera(because: [.capture, .onDemand])])
    }

    /// With `renditions:`, any change to them restarts (so does the camera's bitrate, which they inherit from).
    @Test func renditionChangesRestartTheCamera() {
        let old = Self.renditions(Self.camera)
        #expect(CameraReconciler.actions(from: Self.camera, to: old) == [.restartCamera(because: [.renditions(["hd", "sd"])])])
        #expect(CameraReconciler.actions(from: old, to: Self.camera) == [.restartCamera(because: [.renditions(["hd", "sd"])])])
        #expect(CameraReconciler.actions(from: old, to: Self.renditions(Self.camera, sdBitrate: 600_000))
            == [.restartCamera(because: [.renditions(["sd"])])])
        var dropped = old
        dropped.renditions.removeLast()
        #expect(CameraReconciler.actions(from: old, to: dropped) == [.restartCamera(because: [.renditions(["sd"])])])
        var bitrate = old
        bitrate.encoder.bitrateBitsPerSecond = 1_000_000
        #expect(CameraReconciler.actions(from: old, to: bitrate) == [.restartCamera(because: [.encoder])])
    }

    /// Outputs on a rendition change in place like any other, with the renditions unchanged.
    @Test func anOutputMovingToAnotherRenditionIsReplaced() {
        var old = Self.renditions(Self.camera)
        old.outputs[1].rendition = "hd"
        var new = old
        new.outputs[1].rendition = "sd"
        new.outputs.append(Self.record("low", "/tmp/low.mp4"))
        new.outputs[2].rendition = "sd"
        #expect(CameraReconciler.actions(from: old, to: new)
            == [.keepOutput(id: "record"), .replaceOutput(new.outputs[1]), .startOutput(new.outputs[2])])
    }
}
