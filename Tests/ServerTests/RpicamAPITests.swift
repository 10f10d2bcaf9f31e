import Capture
import Engine
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The API with a CSI camera (`rpicam:N`, the stand-in rpicam-vid): its controls are listed and
/// set like V4L2 ones, a change restarts rpicam-vid with the new option while the outputs keep
/// running, the snapshot works, and a camera can be switched to `rpicam:N`.
@Suite(.serialized, .timeLimit(.minutes(2))) struct RpicamAPITests {
    struct ControlBody: Decodable { let camera: String; let control: V4L2Control }
    struct ControlsBody: Decodable { let camera: String; let controls: [V4L2Control] }

    @Test func controlsAreListedAndAChangeRestartsRpicamVid() async throws {
        let camera = try RpicamStandIn(width: 320, height: 240, frameCount: 30)
        try await ServerFixture.run(source: .rpicam(index: camera.index)) { client, broadcaster, _ in
            // The stand-in logs its arguments once Python is up; a change before that kills it unlogged.
            let firstStarted = await eventually(within: 10) { camera.invocations.count == 1 }
            #expect(firstStarted, "rpicam-vid did not start")
            try await client.execute(uri: "/api/cameras/cam0/controls", method: .get) { response in
                #expect(response.status == .ok)
                let body = try ServerFixture.decode(ControlsBody.self, response)
                #expect(body.controls.map(\.key) == RpicamControls.definitions.map(\.key))
            }
            try await client.execute(uri: "/api/cameras/cam0/controls", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"name":"brightness","value":"30"}"#)) { response in
                #expect(response.status == .ok)
                let body = try ServerFixture.decode(ControlBody.self, response)
                #expect(body.control.value == 30)
            }
            let restarted = await eventually(within: 10) { camera.invocations.count == 2 }
            #expect(restarted, "rpicam-vid was not restarted")
            #expect(camera.invocations.last?.suffix(2) == ["--brightness", "0.30"])
            try await client.execute(uri: "/api/cameras/cam0/controls", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"name":"awb","value":"sunny"}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(ServerFixture.errorMessage(response)?.contains("use one of auto, incandescent") == true)
            }
            let runtime = try await broadcaster.camera(ServerFixture.cameraID)
            let before = runtime.framesEncoded
            let flowing = await eventually(within: 10) { runtime.framesEncoded > before + 15 }
            #expect(flowing, "no frames after the restart")
            #expect(runtime.outputs.allSatisfy { $0.status.state.rawValue == "running" })
            try await client.execute(uri: "/api/cameras/cam0/snapshot.jpg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Array(response.body.readableBytesView.prefix(2)) == [0xFF, 0xD8])
            }
        }
        #expect(camera.runningProcesses.isEmpty, "rpicam-vid outlived the broadcaster")
    }

    @Test func aCameraCanBeSwitchedToACSICamera() async throws {
        let camera = try RpicamStandIn(width: 320, height: 240, frameCount: 30)
        try await ServerFixture.run { client, _, _ in
            try await client.execute(uri: "/api/cameras/cam0/source", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"source":"rpicam:\#(camera.index)"}"#)) { #expect($0.status == .ok) }
            let started = await eventually(within: 10) { camera.invocations.count == 1 }
            #expect(started)
        }
        #expect(camera.runningProcesses.isEmpty)
    }
}
