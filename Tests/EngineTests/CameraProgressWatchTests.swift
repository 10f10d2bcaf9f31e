import Testing
@testable import Engine

/// The watchdog's per-camera verdict: one camera that stopped encoding is named, whatever the others do.
@Suite struct CameraProgressWatchTests {
    @Test func oneWedgedCameraAmongSeveralIsNamed() {
        var watch = CameraProgressWatch()
        #expect(watch.stalledCameras(framesEncoded: ["a": 10, "b": 10]).isEmpty, "first look: nothing to compare")
        #expect(watch.stalledCameras(framesEncoded: ["a": 40, "b": 40]).isEmpty)
        #expect(watch.stalledCameras(framesEncoded: ["a": 400, "b": 40]) == ["b"], "a's frames do not cover for b")
        #expect(watch.stalledCameras(framesEncoded: ["a": 430, "b": 41]).isEmpty, "b came back")
        #expect(watch.stalledCameras(framesEncoded: ["a": 430, "b": 50]) == ["a"])
    }

    @Test func camerasThatComeAndGoAreNotCalledStalled() {
        var watch = CameraProgressWatch()
        _ = watch.stalledCameras(framesEncoded: ["a": 5])
        #expect(watch.stalledCameras(framesEncoded: ["a": 9, "new": 0]).isEmpty, "a camera added by a reload starts fresh")
        #expect(watch.stalledCameras(framesEncoded: ["new": 3]).isEmpty, "a removed camera is forgotten")
        #expect(watch.stalledCameras(framesEncoded: ["new": 3]) == ["new"])
    }
}
