import Foundation
import TestSupport

/// `livepush serve` (``ServeUnderTest``) with the cameras a test writes, read through its HTTP API
/// (`/api/status`) with curl. `close()` leaves no process behind, whatever failed.
struct LivepushServe {
    let serve: ServeUnderTest
    var process: BackgroundProcess { serve.process }
    var port: String { serve.port }

    /// `cameras` is the YAML under `cameras:` (indented by two spaces per level, starting with `  - id:`).
    init(directory: TemporaryDirectory, cameras: String) throws {
        serve = try ServeUnderTest(yaml: "listen: 127.0.0.1:0\ncameras:\n\(cameras)\n", in: directory)
    }

    /// The first camera of `/api/status`, or nil while the server is not answering.
    func camera() -> [String: Any]? {
        guard let text = try? Curl.body(["-f", "\(serve.baseURL)/api/status"]),
              let status = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        return (status["cameras"] as? [[String: Any]])?.first
    }

    /// The first camera's output `id` in `/api/status`.
    func output(_ id: String) -> [String: Any]? {
        (camera()?["outputs"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// POST within 10 s, or throw.
    func post(_ path: String) throws {
        try ExternalTool.run("curl", ["-sf", "-m", "10", "-X", "POST", "\(serve.baseURL)\(path)"], timeoutSeconds: 20)
    }

    /// SIGTERM; the exit status within 15 s (nil: still running).
    func stop() -> Int32? { serve.stop() }

    func close() {
        process.kill(signal: SIGKILL)
        _ = process.wait(timeoutSeconds: 5)
    }
}
