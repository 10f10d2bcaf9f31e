import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nginx with libnginx-mod-rtmp on a free 127.0.0.1 port (recipe in shared/peers): `live` application,
/// `record all` + `record_unique on` so every publish leaves its own FLV, `idle_streams off` so readers see EOF.
///
/// With `dropIdlePublisherSeconds`, nginx drops a publisher that sent no media for that long
/// (`drop_idle_publisher`), as ingest services do: a publisher whose path went silent would
/// otherwise hold the key, and its reconnect would be refused as already publishing.
///
/// With `tls`, nginx's stream module also terminates TLS on `tlsPort` (the certificate `tls` issued for
/// localhost and 127.0.0.1) and passes the plain bytes to the RTMP port: RTMPS as ingest services run it.
///
/// With `recording: .video`, the recordings hold the video alone (what the benchmarks measure a
/// publisher's bitrate by); with `namespace`, nginx runs inside that loopback-only network namespace.
public final class NginxRTMPServer {
    /// What nginx records of each publish (its `record` directive).
    public enum Recording: String, Sendable {
        case all, video
    }

    public let directory: TemporaryDirectory
    public let port: Int
    public let tlsPort: Int?
    private let namespace: LoopbackNamespace?
    private var process: BackgroundProcess?

    public init(tls: TestCertificateAuthority? = nil, dropIdlePublisherSeconds: Int? = nil,
                recording: Recording = .all, in namespace: LoopbackNamespace? = nil) throws {
        self.namespace = namespace
        directory = try TemporaryDirectory()
        port = try LocalPort.free()
        tlsPort = try tls.map { _ in try LocalPort.free() }
        for sub in ["logs", "rec", "tmp"] {
            try FileManager.default.createDirectory(atPath: directory.file(sub), withIntermediateDirectories: true)
        }
        let dir = directory.path
        var (tlsModule, tlsFront) = ("", "")
        if let tls, let tlsPort {
            tlsModule = "load_module /usr/lib/nginx/modules/ngx_stream_module.so;"
            tlsFront = """
            stream { server { listen 127.0.0.1:\(tlsPort) ssl; proxy_pass 127.0.0.1:\(port);
              ssl_certificate \(tls.serverCertificatePath); ssl_certificate_key \(tls.serverKeyPath); } }
            """
        }
        try """
        load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
        \(tlsModule)
        daemon off; master_process off; user root; worker_processes 1;
        error_log \(dir)/logs/error.log info; pid \(dir)/logs/nginx.pid;
        events { worker_connections 256; }
        rtmp { server { listen 127.0.0.1:\(port); chunk_size 4096;
          application live { live on; idle_streams off;
            record \(recording.rawValue); record_path \(dir)/rec; record_unique on;
            \(dropIdlePublisherSeconds.map { "drop_idle_publisher \($0)s;" } ?? "") } } }
        \(tlsFront)
        """.write(toFile: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    public func url(key: String = "key") -> String { "rtmp://127.0.0.1:\(port)/live/\(key)" }

    public func start() throws {
        let process = try BackgroundProcess("nginx", ["-p", directory.path + "/", "-c", directory.file("nginx.conf")], in: namespace)
        self.process = process
        for listening in [port] + (tlsPort.map { [$0] } ?? []) {
            // Inside a namespace, this process cannot connect to nginx: it reads nginx's socket table.
            let up = namespace == nil ? LocalPort.waitUntilListening(listening, timeoutSeconds: 5)
                : LocalPort.waitUntilListeningSocket(listening, timeoutSeconds: 5, inNamespaceOf: process.pid)
            guard up else { throw TestSetupError("nginx did not listen on \(listening): \(process.errorOutput)") }
        }
    }

    /// SIGKILL: the server vanishes without a goodbye, as in a crash.
    public func kill() {
        process?.kill(signal: SIGKILL)
        process?.wait(timeoutSeconds: 5)
        process = nil
    }

    /// Waits (at most `timeoutSeconds`) until the recordings stop growing for half a second: data a
    /// proxy still held when the publisher left keeps arriving after it exits.
    public func waitForRecordingsToSettle(timeoutSeconds: Double = 10) {
        func sizes() -> [Int] { recordings.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? -1 } }
        var last = sizes()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
            let now = sizes()
            if now == last { return }
            last = now
        }
    }

    /// Waits (at most `timeoutSeconds`) until nginx records media published to `key`: the publisher
    /// is on the air, whatever its start-up took. Needs a server made with a recording.
    public func waitUntilPublishing(key: String, timeoutSeconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            let sizes = recordings(key: key).map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
            if sizes.contains(where: { $0 > Self.recordedMediaBytes }) { return true }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return false
    }

    /// More than an FLV header and metadata: media has been recorded.
    static let recordedMediaBytes = 4_096

    /// The recorded FLVs, oldest first (`record_unique` names end in the publish time).
    public var recordings: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.file("rec"))) ?? []
        return names.filter { $0.hasSuffix(".flv") }.sorted().map { directory.file("rec/\($0)") }
    }

    /// The recorded FLVs of the publishes to `key` (named KEY-TIME.flv), oldest first.
    public func recordings(key: String) -> [String] {
        recordings.filter { path in
            let name = URL(fileURLWithPath: path).lastPathComponent
            guard name.hasPrefix(key + "-"), name.hasSuffix(".flv") else { return false }
            return name.dropFirst(key.count + 1).dropLast(".flv".count).allSatisfy(\.isNumber)
        }
    }

    /// The bitrate nginx received from the publishers of `key`: the recordings' bytes over their
    /// duration as ffprobe reads it; nil if there is no recording.
    public func recordedKilobitsPerSecond(key: String) -> Int? {
        var bits = 0, seconds = 0.0
        for path in recordings(key: key) {
            guard let bytes = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
                  let probe = try? ExternalTool.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                                                    timeoutSeconds: 30, check: false),
                  let duration = Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
            bits += bytes * 8
            seconds += duration
        }
        return seconds > 0 ? Int(Double(bits) / seconds / 1000) : nil
    }

    deinit { kill() }
}

/// Loopback ports for servers the tests start.
public enum LocalPort {
    /// A port the kernel just handed out (bound, then released).
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestSetupError( "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public static func waitUntilListening(_ port: Int, timeoutSeconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if accepts(port) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// Waits for a listening TCP socket on `port` without connecting to it (from /proc/net/tcp), for servers
    /// such as `ffmpeg -listen 1` that take only the first connection; with `pid`, in that process's
    /// network namespace (/proc/PID/net/tcp).
    public static func waitUntilListeningSocket(_ port: Int, timeoutSeconds: Double, inNamespaceOf pid: pid_t? = nil) -> Bool {
        let tablePath = pid.map { "/proc/\($0)/net/tcp" } ?? "/proc/net/tcp"
        let local = String(format: ":%04X", port)
        let listenState = "0A"
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            let table = (try? String(contentsOfFile: tablePath, encoding: .utf8)) ?? ""
            let listening = table.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == listenState
            }
            if listening { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A peer the test needs did not come up as expected.
public struct TestSetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
