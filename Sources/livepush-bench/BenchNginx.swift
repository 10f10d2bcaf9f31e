import Foundation

/// A throwaway nginx-rtmp on a loopback port for the benchmarks, inside `namespace` when given. It
/// records each publish (`rec/KEY.flv`), so a benchmark can show what each publisher delivered.
struct BenchNginx {
    let directory: String
    let port: Int
    let process: Process

    init(namespace: BenchNamespace? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/rec", withIntermediateDirectories: true)
        port = Int.random(in: 20000...40000)
        try """
        load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
        daemon off; master_process off; user root; worker_processes 1;
        error_log \(directory)/logs/error.log; pid \(directory)/logs/nginx.pid;
        events { worker_connections 64; }
        rtmp { server { listen 127.0.0.1:\(port); chunk_size 4096;
          application live { live on; record video; record_path \(directory)/rec; } } }
        """.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let command = namespace?.command("/usr/sbin/nginx", ["-p", directory + "/", "-c", directory + "/nginx.conf"])
            ?? (executable: "/usr/sbin/nginx", arguments: ["-p", directory + "/", "-c", directory + "/nginx.conf"])
        process = Process()
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments
        try process.run()
        Thread.sleep(forTimeInterval: 0.5)
        guard process.isRunning else { throw ValidationErrorText("nginx with libnginx-mod-rtmp did not start: run scripts/install-deps --test") }
    }

    func url(_ key: String) -> String { "rtmp://127.0.0.1:\(port)/live/\(key)" }

    /// The video bitrate nginx received from the publisher of `key`: the recording's bytes over its
    /// duration as ffprobe reads it; nil if there is no recording.
    func recordedKilobitsPerSecond(key: String) -> Int? {
        let path = "\(directory)/rec/\(key).flv"
        guard let bytes = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else { return nil }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        probe.arguments = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]
        let pipe = Pipe()
        probe.standardOutput = pipe
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        guard let seconds = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)), seconds > 0 else { return nil }
        return Int(Double(bytes * 8) / seconds / 1000)
    }

    func stop() {
        // nginx without a master process does not always exit on SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
