import Engine
import Foundation
import Harness

/// A `livepush serve` the benchmark started in `namespace`, reached the way users reach it: its
/// HTTP API through curl and its WHEP endpoint through the tests' aiortc viewer (`aiortc_whep.py`,
/// in the venv scripts/test-venv makes), both run inside the same namespace.
struct BenchServeAPI {
    let namespace: LoopbackNamespace
    let port: Int

    /// `POST /api/…`; throws unless the answer is 2xx.
    func post(_ path: String) throws {
        let curl = try BackgroundProcess(logging: "/usr/bin/curl", ["-sf", "-m", "5", "-X", "POST", "http://127.0.0.1:\(port)\(path)"], in: namespace)
        guard curl.waitForExit(timeoutSeconds: 10), curl.process.terminationStatus == 0 else {
            curl.stop()
            throw ValidationErrorText("POST \(path) failed: \(curl.output)")
        }
    }

    /// `GET /api/status`, decoded.
    func status() throws -> StatusReport {
        let curl = try BackgroundProcess(logging: "/usr/bin/curl", ["-sf", "-m", "5", "http://127.0.0.1:\(port)/api/status"], in: namespace)
        guard curl.waitForExit(timeoutSeconds: 10), curl.process.terminationStatus == 0 else {
            curl.stop()
            throw ValidationErrorText("GET /api/status failed: \(curl.output)")
        }
        return try JSONDecoder().decode(StatusReport.self, from: Data(curl.output.utf8))
    }

    /// An aiortc WHEP viewer of `camera` that decodes `frames` frames (or gives up after
    /// `timeoutSeconds`), then prints one JSON line with what it saw (``ServeBenchmark/viewerSummary(_:)``).
    func startViewer(camera: String, frames: Int, timeoutSeconds: Int) throws -> BackgroundProcess {
        try PythonPeers.start("aiortc_whep.py", ["http://127.0.0.1:\(port)/whep/\(camera)", "\(frames)", "\(timeoutSeconds)"],
                              python: try PythonPeers.python(), in: namespace)
    }
}
