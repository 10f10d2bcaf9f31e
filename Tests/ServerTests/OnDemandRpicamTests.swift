import Capture
import Config
import Engine
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `on_demand: true` with a CSI camera (the stand-in rpicam-vid) behind the real router: while
/// the camera idles, rpicam-vid is not running (on a Pi, the camera and the ISP rest); a snapshot
/// and an output started through the API each start it again.
@Suite(.serialized, .timeLimit(.minutes(2))) struct OnDemandRpicamTests {
    @Test func rpicamVidRunsOnlyWhileTheCameraIsWanted() async throws {
        let camera = try RpicamStandIn(width: 320, height: 240, frameCount: 30)
        try await ServerFixture.run(configure: { config in
            config.cameras[0].source = .rpicam(index: camera.index)
            config.cameras[0].onDemand = OnDemandConfig(idleSeconds: 0.5)
        }) { client, broadcaster, _, _ in
            let runtime = try await broadcaster.camera(ServerFixture.cameraID)
            #expect(await eventually { runtime.framesEncoded > 5 }, "the running recording keeps the camera running")
            #expect(camera.runningProcesses.count == 1)

            try await client.execute(uri: "/api/cameras/cam0/outputs/record/stop", method: .post) { #expect($0.status == .ok) }
            #expect(await eventually { runtime.report().state == "idle" && camera.runningProcesses.isEmpty },
                    "idle: rpicam-vid ended (\(runtime.report().state), \(camera.runningProcesses))")
            #expect(runtime.report().stateReason == "on demand, no viewer")

            let starts = camera.invocations.count
            try await client.execute(uri: "/api/cameras/cam0/snapshot.jpg", method: .get) { response in
                #expect(response.status == .ok, "a snapshot starts the idle camera")
                #expect(Array(response.body.readableBytesView.prefix(2)) == [0xFF, 0xD8])
            }
            #expect(camera.invocations.count == starts + 1)
            #expect(await eventually { runtime.report().state == "idle" && camera.runningProcesses.isEmpty },
                    "idle again after the snapshot's hold and the grace")

            let encoded = runtime.framesEncoded
            try await client.execute(uri: "/api/cameras/cam0/outputs/record/start", method: .post) { #expect($0.status == .ok) }
            #expect(await eventually { runtime.framesEncoded > encoded + 5 }, "an output started through the API starts the camera")
            #expect(runtime.report().state == "running" && camera.runningProcesses.count == 1)
            #expect(runtime.report().onDemand?.starts == 2)
        }
        #expect(camera.runningProcesses.isEmpty, "rpicam-vid outlived the broadcaster")
    }
}
