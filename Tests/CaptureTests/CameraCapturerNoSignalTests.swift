import Capture
import MediaCore
import Synchronization
import Testing

/// The one capturer of `run`, `snapshot`, `stream` and `serve` over a camera that is not there:
/// the card and an error event (`run`, streams), or the camera's error from `start` (`snapshot`).
@Suite struct CameraCapturerNoSignalTests {
    final class FrameCounter: VideoSink {
        let frames = Mutex(0)
        func onFrame(_ frame: VideoFrame) { frames.withLock { $0 += 1 } }
    }

    static let config = CaptureConfig(size: VideoSize(width: 320, height: 240), framesPerSecond: 30)

    static func missingCamera() -> ResilientSourceTests.UnpluggableSource {
        let camera = ResilientSourceTests.UnpluggableSource()
        camera.plugged.withLock { $0 = false }
        return camera
    }

    @Test func aMissingCameraShowsTheCardAndIsReported() async throws {
        let capturer = CameraCapturer(source: Self.missingCamera(), config: Self.config)
        let events = capturer.events
        let sink = FrameCounter()
        let format = try await capturer.start(sink: sink)
        #expect(format.notes.first?.hasPrefix("no signal") == true)
        let watcher = Task { () -> [CaptureEvent] in
            var seen: [CaptureEvent] = []
            for await event in events {
                seen.append(event)
                if case .error = event { break }
            }
            return seen
        }
        let timeout = Task { try await Task.sleep(for: .seconds(3)); watcher.cancel() }
        let seen = await watcher.value
        timeout.cancel()
        #expect(seen.last == .error(.deviceNotFound(path: "/dev/video-test")), "\(seen)")
        let deadline = MonotonicClock.nowNanos() + 3_000_000_000
        while sink.frames.withLock({ $0 }) < 5, MonotonicClock.nowNanos() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(sink.frames.withLock { $0 } >= 5, "cards at the frame rate")
        #expect(capturer.isShowingPlaceholder)
        await capturer.stop()
    }

    @Test func failThrowsTheCamerasErrorFromStart() async throws {
        let capturer = CameraCapturer(source: Self.missingCamera(), config: Self.config, noSignal: .fail)
        let sink = FrameCounter()
        await #expect(throws: CaptureError.deviceNotFound(path: "/dev/video-test")) { _ = try await capturer.start(sink: sink) }
        #expect(sink.frames.withLock { $0 } == 0)
        await capturer.stop()
    }
}
