import Foundation
import TestSupport

/// `livepush serve` on a random 127.0.0.1 port with a config the test writes, read through its
/// HTTP API (`/api/status`) with curl. `close()` leaves no process behind, whatever failed.
struct LivepushServe {
    let directory: TemporaryDirectory
    let process: BackgroundProcess
    let port = Int.random(in: 41000...49000)

    /// `cameras` is the YAML under `cameras:` (indented by two spaces per level, starting with `  - id:`).
    init(directory: TemporaryDirectory, cameras: String) throws {
        self.directory = directory
        try "listen: 127.0.0.1:\(port)\ncameras:\n\(cameras)\n".write(toFile: directory.file("serve.yaml"), atomically: true, encoding: .utf8)
        process = try BackgroundProcess(try LivepushBinary.path(), ["serve", "--config", directory.file("serve.yaml")])
    }

    /// The first camera of `/api/status`, or nil while the server is not answering.
    func camera() -> [String: Any]? {
        guard let result = try? ExternalTool.run("curl", ["-sf", "-m", "3", "http://127.0.0.1:\(port)/api/status"], timeoutSeconds: 10),
              let status = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else { return nil }
        return (status["cameras"] as? [[String: Any]])?.first
    }

    /// The first camera's output `id` in `/api/status`.
    func output(_ id: String) -> [String: Any]? {
        (camera()?["outputs"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// POST within 10 s, or throw.
    func post(_ path: String) throws {
        try ExternalTool.run("curl", ["-sf", "-m", "10", "-X", "POST", "http://127.0.0.1:\(port)\(path)"], timeoutSeconds: 20)
    }

    /// SIGTERM; the exit status within 15 s (nil: still running).
    func stop() -> Int32? {
        process.kill(signal: SIGTERM)
        return process.wait(timeoutSeconds: 15)
    }

    func close() {
        process.kill(signal: SIGKILL)
        _ = process.wait(timeoutSeconds: 5)
    }
}
