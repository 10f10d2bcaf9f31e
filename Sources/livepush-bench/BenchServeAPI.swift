import Engine
import Foundation

/// A `livepush serve` the benchmark started in `namespace`, reached the way users reach it: its
/// HTTP API through curl and its WHEP endpoint through the tests' aiortc viewer (`aiortc_whep.py`,
/// in the venv scripts/test-venv makes), both run inside the same namespace.
struct BenchServeAPI {
    let namespace: BenchNamespace
    let port: Int

    /// `POST /api/…`; throws unless the answer is 2xx.
    func post(_ path: String) throws {
        let curl = try BenchChild("/usr/bin/curl", ["-sf", "-m", "5", "-X", "POST", "http://127.0.0.1:\(port)\(path)"], in: namespace)
        guard curl.waitForExit(timeoutSeconds: 10), curl.process.terminationStatus == 0 else {
            curl.stop()
            throw ValidationErrorText("POST \(path) failed: \(curl.output)")
        }
    }

    /// `GET /api/status`, decoded.
    func status() throws -> StatusReport {
        let curl = try BenchChild("/usr/bin/curl", ["-sf", "-m", "5", "http://127.0.0.1:\(port)/api/status"], in: namespace)
        guard curl.waitForExit(timeoutSeconds: 10), curl.process.terminationStatus == 0 else {
            curl.stop()
            throw ValidationErrorText("GET /api/status failed: \(curl.output)")
        }
        return try JSONDecoder().decode(StatusReport.self, from: Data(curl.output.utf8))
    }

    /// An aiortc WHEP viewer of `camera` that decodes `frames` frames (or gives up after
    /// `timeoutSeconds`), then prints one JSON line with what it saw (``ServeBenchmark/viewerSummary(_:)``).
    func startViewer(camera: String, frames: Int, timeoutSeconds: Int) throws -> BenchChild {
        let repository = try ServeUnderTest.repository()
        let python = try BenchChild(repository + "/scripts/test-venv", [])
        guard python.waitForExit(timeoutSeconds: 900), python.process.terminationStatus == 0 else {
            python.stop()
            throw ValidationErrorText("scripts/test-venv failed: \(python.output.suffix(2000))")
        }
        let interpreter = python.output.split(separator: "\n").last.map(String.init) ?? ""
        return try BenchChild(interpreter, [repository + "/Tests/WebRTCTransportTests/Peers/aiortc_whep.py",
                                            "http://127.0.0.1:\(port)/whep/\(camera)", "\(frames)", "\(timeoutSeconds)"],
                              in: namespace)
    }
}
