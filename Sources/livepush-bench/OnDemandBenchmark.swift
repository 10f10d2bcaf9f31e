import Engine
import Foundation
import Harness
import MediaCore

/// `on_demand: true` against the same camera always on: `livepush serve` with one camera (the
/// busy test pattern at 720p30, libx264 veryfast 2.5 Mbit/s, a WHEP endpoint and a recording
/// output), in a loopback-only namespace, run twice — once on demand, once always on:
///
///     livepush-bench --only ondemand [--frames 900]     (frames / 30 = seconds of the idle window)
///
/// - idle CPU: the process's user + system time over the window (100 % = one core), with the
///   recording stopped through the API and no viewer (on demand, the camera has idled first);
/// - output start → first frame: from `POST …/outputs/record/start` to /api/status showing a new
///   encoded frame (status polled every 20 ms, so the figure carries up to that much more);
/// - viewer → first frame: an aiortc WHEP viewer's own count from its offer to its first decoded
///   frame (ICE and DTLS included, as they are for the always-on camera).
struct OnDemandBenchmark {
    var seconds: Int
    
    func run() throws -> BenchTable {
        var table = BenchTable(title: "on_demand vs always on: serve at 720p30 x264 veryfast, nobody watching (\(seconds) s idle window)",
                               columns: ["camera", "idle CPU % of one core", "frames encoded while idle",
                                         "output start → first encoded frame ms", "WHEP viewer offer → first decoded frame ms"])
        for onDemand in [true, false] {
            table.rows.append(try measure(onDemand: onDemand))
        }
        return table
    }

    private func measure(onDemand: Bool) throws -> [String] {
        let namespace = try LoopbackNamespace(holdingForSeconds: seconds + 240)
        defer { namespace.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-ondemand-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = Int.random(in: 40001...50000)
        let config = directory.appendingPathComponent("serve.yaml").path
        try ServeUnderTest.config(port: port, cameraKeys: onDemand ? ["on_demand: true", "on_demand_idle: 1s"] : [],
                                  outputs: ["whep: {max_viewers: 4}", "record: {path: \(directory.appendingPathComponent("rec.mp4").path)}"])
            .write(toFile: config, atomically: true, encoding: .utf8)
        let serve = try BackgroundProcess(logging: LivepushExecutable.path, ["serve", "--config", config], in: namespace)
        defer { serve.stop() }
        guard serve.waitForOutput(containing: "pipeline up", timeoutSeconds: 30) else {
            throw ValidationErrorText("livepush serve did not start within 30 s: \(serve.output.suffix(2000))")
        }
        let api = BenchServeAPI(namespace: namespace, port: port)
        let record = "/api/cameras/\(ServeUnderTest.camera)/outputs/record"

        try api.post(record + "/stop")
        try settle(api, idle: onDemand)
        let encodedBefore = try framesEncoded(api)
        guard let before = serve.sample else { throw ValidationErrorText("livepush serve exited: \(serve.output.suffix(2000))") }
        let started = MonotonicClock.nowNanos()
        Thread.sleep(forTimeInterval: Double(seconds))
        guard let after = serve.sample else { throw ValidationErrorText("livepush serve exited: \(serve.output.suffix(2000))") }
        let cpuPercent = (after.cpuSeconds - before.cpuSeconds) / (Double(MonotonicClock.nowNanos() - started) / 1e9) * 100
        let encodedIdle = try framesEncoded(api) - encodedBefore

        let encodedAtStart = try framesEncoded(api)
        let requested = MonotonicClock.nowNanos()
        try api.post(record + "/start")
        let outputMs = try waitForFrame(api, after: encodedAtStart).map { Double($0 - requested) / 1e6 }
        try api.post(record + "/stop")
        try settle(api, idle: onDemand)

        let viewer = try api.startViewer(camera: ServeUnderTest.camera, frames: 30, timeoutSeconds: 30)
        viewer.waitForExit(timeoutSeconds: 60)
        let firstFrame = (ServeBenchmark.viewerResult(viewer.output)?["firstFrameSeconds"] as? Double).map { $0 * 1000 }
        func ms(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "no frame" }
        return [onDemand ? "on_demand: true (idle)" : "always on", String(format: "%.1f", cpuPercent), "\(encodedIdle)",
                ms(outputMs), firstFrame == nil ? "no frame (\(ServeBenchmark.viewerSummary(viewer.output)))" : ms(firstFrame)]
    }

    /// On demand: waits (bounded) until the camera reports idle; always on: a second for the stop to land.
    private func settle(_ api: BenchServeAPI, idle: Bool) throws {
        guard idle else { return Thread.sleep(forTimeInterval: 1) }
        for _ in 0..<150 {
            if try api.status().cameras.first?.state == "idle" { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw ValidationErrorText("the on-demand camera did not go idle within 15 s")
    }

    private func framesEncoded(_ api: BenchServeAPI) throws -> Int { try api.status().cameras.first?.framesEncoded ?? 0 }

    /// When /api/status first showed more than `count` frames encoded (polled every 20 ms, for 10 s at most).
    private func waitForFrame(_ api: BenchServeAPI, after count: Int) throws -> Int64? {
        let deadline = MonotonicClock.nowNanos() + 10_000_000_000
        while MonotonicClock.nowNanos() < deadline {
            if try framesEncoded(api) > count { return MonotonicClock.nowNanos() }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }
}
