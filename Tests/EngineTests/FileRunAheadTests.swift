import Capture
import Config
@testable import Engine
import Testing

/// Which cameras may let a file run ahead of its clock (``CameraRuntime/runsAhead(_:audio:)``): a file
/// whose every output records, with no live audio and no on-demand viewers. Anything watched live
/// keeps the file paced frame by frame.
@Suite struct FileRunAheadTests {
    static let record = CameraReconcilerTests.record("record")
    static let rtmp = CameraReconcilerTests.rtmp
    static let file = SourceSpec.file(path: "/tmp/clip.mkv", loops: false)

    static func camera(_ source: SourceSpec = file, outputs: [OutputConfig] = [record], onDemand: Bool = false) -> CameraConfig {
        var camera = CameraConfig(id: "cam0", source: source, outputs: outputs)
        if onDemand { camera.onDemand = OnDemandConfig() }
        return camera
    }

    @Test func aFileThatOnlyRecordsRunsAhead() {
        #expect(CameraRuntime.runsAhead(Self.camera(), audio: nil))
        #expect(CameraRuntime.runsAhead(Self.camera(outputs: [Self.record, Self.record]), audio: nil))
        #expect(CameraRuntime.runsAhead(Self.camera(.file(path: "/tmp/clip.mkv", loops: true)), audio: nil))
    }

    @Test func anythingWatchedLiveKeepsItPaced() {
        #expect(!CameraRuntime.runsAhead(Self.camera(outputs: [Self.record, Self.rtmp]), audio: nil), "a live output")
        #expect(!CameraRuntime.runsAhead(Self.camera(outputs: []), audio: nil), "no output")
        #expect(!CameraRuntime.runsAhead(Self.camera(), audio: AudioConfig()), "audio captured live")
        #expect(!CameraRuntime.runsAhead(Self.camera(onDemand: true), audio: nil), "on demand")
        #expect(!CameraRuntime.runsAhead(Self.camera(.testPattern), audio: nil), "not a file")
    }
}
