import Foundation

/// Runs a real peer or reference tool (ffmpeg, ffprobe, v4l2-ctl, nginx…) for a test, bounded in time.
public struct ExternalTool {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public var errorOutput: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The path of a peer the test cannot do without. A missing peer fails the test, naming the
    /// Debian package to install: a test never skips because its peer is absent.
    @discardableResult
    public static func require(_ name: String) throws -> String {
        guard let executable = path(of: name) else {
            throw Failure(description: "\(name) is not installed: install the Debian package \(package(of: name)) (scripts/install-deps --test installs every peer)")
        }
        return executable
    }

    /// The Debian package that ships a tool the tests run.
    public static func package(of name: String) -> String {
        let packages = ["chromium": "chromium", "chromedriver": "chromium-driver", "unshare": "util-linux",
                        "python3": "python3-venv", "openssl": "openssl", "janus": "janus", "nginx": "nginx libnginx-mod-rtmp",
                        "ffmpeg": "ffmpeg", "ffprobe": "ffmpeg", "gst-launch-1.0": "gstreamer1.0-tools", "v4l2-ctl": "v4l-utils",
                        "timeout": "coreutils", "ip": "iproute2", "tc": "iproute2", "strace": "strace", "curl": "curl", "promtool": "prometheus", "systemd-analyze": "systemd", "tesseract": "tesseract-ocr tesseract-ocr-eng",
                        "srt-live-transmit": "srt-tools", "taskset": "util-linux"]
        return packages[(name as NSString).lastPathComponent] ?? name
    }

    public static func path(of name: String) -> String? {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs the tool to completion, killing it after `timeoutSeconds`; throws if it cannot start,
    /// times out, or (with `check`) exits non-zero.
    @discardableResult
    public static func run(_ name: String, _ arguments: [String], timeoutSeconds: Double = 60,
                           environment: [String: String] = [:], check: Bool = true) throws -> Result {
        let executable = try require(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let directory = try TemporaryDirectory()
        let outURL = directory.url.appendingPathComponent("stdout"), errURL = directory.url.appendingPathComponent("stderr")
        try process.run(writingOutputTo: outURL, errorsTo: errURL)
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            ProcessTree.terminate(process.processIdentifier, graceSeconds: 0.5)
            process.waitUntilExit()
            throw Failure(description: "\(name) \(arguments.joined(separator: " ")) timed out after \(timeoutSeconds) s")
        }
        let result = Result(status: process.terminationStatus,
                            output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                            errorOutput: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
        if check && result.status != 0 {
            throw Failure(description: "\(name) exited \(result.status): \(result.errorOutput.suffix(2000))")
        }
        return result
    }
}

/// A directory removed when the value goes away.
public final class TemporaryDirectory {
    public let url: URL
    public var path: String { url.path }

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
