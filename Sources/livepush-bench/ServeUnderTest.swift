import Engine
import Foundation
import Harness
import Server

/// `livepush serve` (this binary) set up as the serve and soak benchmarks measure it: by default one camera
/// (the busy test pattern, so x264 spends its bitrate as ffmpeg's testsrc2 makes it do) at 720p30, libx264 veryfast 2.5 Mbit/s, two outputs — RTMP to a private
/// nginx-rtmp and the built-in WHEP viewer — or the long run's camera job (``ServeSetup``), all inside one loopback-only network namespace,
/// where an aiortc WHEP client (the tests' `aiortc_whep.py`, from the venv `scripts/test-venv`
/// makes) can attach as the viewer.
final class ServeUnderTest {
    static let camera = "cam0"
    let namespace: LoopbackNamespace
    let nginx: NginxRTMPServer
    let serve: BackgroundProcess
    let httpPort = Int.random(in: 40001...50000)
    private let directory: String

    /// Starts everything and waits (bounded) until the pipeline is up; `lifetimeSeconds` bounds the namespace.
    init(lifetimeSeconds: Int, setup: ServeSetup = .testPattern) throws {
        namespace = try LoopbackNamespace(holdingForSeconds: lifetimeSeconds)
        do {
            nginx = try NginxRTMPServer(recording: .video, in: namespace)
        } catch {
            namespace.stop()
            throw error
        }
        directory = nginx.directory.path
        let config = directory + "/serve.yaml"
        try setup.config(port: httpPort, rtmpURL: "rtmp://127.0.0.1:\(nginx.port)/live", directory: directory)
            .write(toFile: config, atomically: true, encoding: .utf8)
        let command = setup.launcher + [LivepushExecutable.path, "serve", "--config", config]
        do {
            serve = try BackgroundProcess(logging: command[0], Array(command.dropFirst()), in: namespace)
        } catch {
            nginx.kill()
            namespace.stop()
            throw error
        }
        guard serve.waitForOutput(containing: "pipeline up", timeoutSeconds: 30) else {
            let output = serve.output
            stop()
            throw ValidationErrorText("livepush serve did not start its pipeline within 30 s: \(output.suffix(2000))")
        }
    }

    /// The serve benchmarks' camera: the busy test pattern at 720p30, libx264 veryfast 2.5 Mbit/s.
    static let testPatternCamera = ["source: testpattern:busy", "size: 1280x720", "fps: 30",
                                    "encoder: {name: libx264, bitrate: 2500k, keyint: 2s, preset: veryfast}"]

    /// The serve benchmarks' config: one camera (`camera`'s YAML lines) with `cameraKeys` added and
    /// `outputs`, each a YAML flow mapping ("whep: {}").
    static func config(port: Int, camera: [String] = testPatternCamera, cameraKeys: [String] = [], outputs: [String]) -> String {
        return (["listen: 127.0.0.1:\(port)", "cameras:", "  - id: \(Self.camera)"] + (camera + cameraKeys).map { "    " + $0 }
                + ["    outputs:"] + outputs.map { "      - " + $0 }).joined(separator: "\n") + "\n"
    }

    /// Its API and WHEP endpoint, from inside the namespace.
    var api: BenchServeAPI { BenchServeAPI(namespace: namespace, port: httpPort) }
    func post(_ path: String) throws { try api.post(path) }
    func status() throws -> StatusReport { try api.status() }

    /// Stops or starts both outputs through the API.
    func setOutputs(running: Bool) throws {
        for output in ["rtmp", "whep"] {
            try post("/api/cameras/\(Self.camera)/outputs/\(output)/\(running ? "start" : "stop")")
        }
    }

    /// An aiortc WHEP viewer of the camera (``BenchServeAPI/startViewer(camera:frames:timeoutSeconds:)``).
    func startViewer(frames: Int, timeoutSeconds: Int) throws -> BackgroundProcess {
        try api.startViewer(camera: Self.camera, frames: frames, timeoutSeconds: timeoutSeconds)
    }

    func stop() {
        serve.stop()
        nginx.kill()
        namespace.stop()
    }
}
