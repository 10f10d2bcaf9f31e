import Foundation
import Harness

/// A real `livepush serve` process on a config the test writes, reached over TCP: curl and raw
/// sockets see what a browser or a hostile client would. ``stop()`` ends it (SIGTERM) and returns
/// its exit status; the process is killed when the value goes away in any case.
public final class ServeUnderTest {
    public let directory: TemporaryDirectory
    public let config: String
    public let process: BackgroundProcess
    /// `http://127.0.0.1:PORT` (or https), from the first line serve prints.
    public let baseURL: String
    public var port: String { String(baseURL.split(separator: ":").last ?? "") }

    public init(yaml: String, environment: [String: String] = [:], in directory: TemporaryDirectory? = nil) throws {
        self.directory = try directory ?? TemporaryDirectory()
        config = self.directory.file("livepush.yaml")
        try yaml.write(toFile: config, atomically: true, encoding: .utf8)
        process = try BackgroundProcess(try LivepushBinary.path(), ["serve", "--config", config], environment: environment)
        let process = process
        guard process.waitUntil(timeoutSeconds: 30, { process.output.contains("dashboard at ") || !process.isRunning }),
              let line = process.output.split(separator: "\n").first(where: { $0.contains("dashboard at ") }),
              let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") }) else {
            process.kill(signal: SIGKILL)
            throw LoopbackNamespace.Failure(description: "livepush serve did not start: \(process.errorOutput.suffix(1500))")
        }
        baseURL = String(url.hasSuffix("/") ? url.dropLast() : url)
    }

    /// Rewrites the config and sends SIGHUP; waits (bounded) until serve says how the reload went.
    public func reload(yaml: String) throws -> Bool {
        let before = process.errorOutput.count
        try yaml.write(toFile: config, atomically: true, encoding: .utf8)
        process.kill(signal: SIGHUP)
        let process = process
        return process.waitUntil(timeoutSeconds: 15) {
            let new = process.errorOutput.dropFirst(before)
            return new.contains("config reloaded") || new.contains("reload refused")
        } && !process.errorOutput.dropFirst(before).contains("reload refused")
    }

    /// One camera's object in `GET /api/status` (nil when there is no such camera).
    public func cameraStatus(_ id: String) throws -> [String: Any]? {
        let body = try Curl.body(["\(baseURL)/api/status"])
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return (json?["cameras"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// The camera's object once `GET /api/status` lists it (serve answers before every camera has
    /// started: an `encoder: auto` camera first encodes a test frame); nil if it never does within
    /// `timeoutSeconds` or serve exits.
    public func waitForCamera(_ id: String, timeoutSeconds: Double = 30) -> [String: Any]? {
        var camera: [String: Any]?
        _ = process.waitUntil(timeoutSeconds: timeoutSeconds) {
            camera = try? cameraStatus(id)
            return camera != nil || !process.isRunning
        }
        return camera
    }

    /// Waits (bounded) until the camera's output `id` reports `running` in `GET /api/status`: serve
    /// answers HTTP before its cameras' outputs have started, later still on a loaded machine.
    public func waitForOutput(_ id: String, of camera: String, timeoutSeconds: Double = 30) -> Bool {
        process.waitUntil(timeoutSeconds: timeoutSeconds) {
            let outputs = (try? cameraStatus(camera))?["outputs"] as? [[String: Any]]
            return outputs?.contains { $0["id"] as? String == id && $0["state"] as? String == "running" } == true || !process.isRunning
        } && process.isRunning
    }

    public func stop() -> Int32? {
        process.kill(signal: SIGTERM)
        return process.wait(timeoutSeconds: 15)
    }

    deinit {
        if process.isRunning { process.kill(signal: SIGKILL); _ = process.wait(timeoutSeconds: 5) }
    }
}

/// curl as the client: the status code of one request (`-w %{http_code}`; "000" when no HTTP
/// answer came, e.g. a refused certificate), or its body.
public enum Curl {
    public static func status(_ arguments: [String]) throws -> String {
        try ExternalTool.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"] + arguments, timeoutSeconds: 20, check: false).output
    }

    /// Saves the answer to `path`; returns the status code.
    public static func download(_ url: String, to path: String) throws -> String {
        try ExternalTool.run("curl", ["-s", "-o", path, "-w", "%{http_code}", "--max-time", "10", url], timeoutSeconds: 20, check: false).output
    }

    public static func body(_ arguments: [String]) throws -> String {
        try ExternalTool.run("curl", ["-s", "--max-time", "10"] + arguments, timeoutSeconds: 20).output
    }
}
