import Capture
import Config
import Logging
import MediaCore
import Prometheus

/// Owns every running camera and applies config changes: the one place API calls, reloads and
/// shutdown meet, serialized by the actor.
public actor Broadcaster {
    public private(set) var config: LivepushConfig
    private var cameras: [String: CameraRuntime] = [:]
    /// Builds every output kind; its WHEP registry is where the HTTP routes find viewers' endpoints.
    public nonisolated let factory: OutputFactory
    public nonisolated let metrics: EngineMetrics?
    /// What viewers' pages report of their latency; into ``metrics``' registry, and into each
    /// output's status (``OutputReport/viewerLatency``).
    public nonisolated let viewerLatency: ViewerLatencyBook
    private let logger: Logger
    private let startedNanos = MonotonicClock.nowNanos()
    /// CPU use since the broadcaster started, then over each status interval.
    private var cpuMeter = RateMeter(baseline: ProcessStats.sample()?.cpuSeconds ?? 0)

    /// What a reload did, for the log and the test.
    public struct ReloadReport: Sendable, Equatable {
        public var unchanged: [String] = []
        /// Cameras that kept running while their outputs or bitrate changed (see ``outputs``).
        public var updated: [String] = []
        /// What changed in each updated camera's outputs.
        public var outputs: [String: CameraRuntime.OutputChanges] = [:]
        public var restarted: [String] = []
        public var added: [String] = []
        public var removed: [String] = []
        public var failed: [String: String] = [:]
    }

    /// Runs for each camera started, on its capture thread, before its encoders get each of its first two frames.
    private let beforeFirstFrames: (@Sendable () -> Void)?
    /// How far a file that only records may run ahead of its clock (``CaptureConfig/fileRunAhead``).
    private let fileRunAhead: Duration

    /// `factory` builds the outputs; the default sends WHEP media from the config's listen host.
    /// `beforeFirstFrames` runs for each camera started before each of its first two frames is
    /// encoded: everything of it is open, then its first frame has been through (`stream` and
    /// `serve` shed file pages there: ``StreamPipeline``).
    /// `fileRunAhead` lets a camera whose source is a file and whose every output records encode
    /// in bursts that far ahead of the clock (``CameraRuntime/runsAhead(_:audio:)``). `stream` sets
    /// it: its outputs never change. `serve` does not, as a reload may add a live output to a
    /// running camera.
    public init(config: LivepushConfig, factory: OutputFactory? = nil, metrics: EngineMetrics? = nil,
                beforeFirstFrames: (@Sendable () -> Void)? = nil, fileRunAhead: Duration = .zero,
                logger: Logger = Logger(label: "livepush.serve")) {
        self.config = config
        self.beforeFirstFrames = beforeFirstFrames
        self.fileRunAhead = fileRunAhead
        self.factory = factory ?? OutputFactory(whep: WHEPRegistry(udpHost: config.listen.host), logger: logger)
        self.metrics = metrics
        self.viewerLatency = ViewerLatencyBook(registry: metrics?.registry ?? PrometheusCollectorRegistry())
        self.logger = logger
    }

    /// Starts every camera; the first failure stops the ones already started and is thrown.
    public func start() async throws {
        for camera in config.cameras {
            do {
                cameras[camera.id] = try await launch(camera, audio: Self.audio(for: camera, in: config))
            } catch {
                await stop()
                throw error
            }
        }
    }

    /// Stops every camera (recordings finalized).
    public func stop() async {
        for id in config.cameras.map(\.id) {
            if let camera = cameras.removeValue(forKey: id) { await camera.stop() }
        }
    }

    /// Applies a new config: cameras whose settings are unchanged keep running untouched; those
    /// where only outputs or the bitrate changed keep running and change in place (unchanged outputs
    /// are never stopped); other changed ones restart, new ones start, removed ones stop. A camera
    /// that fails to start under the new config is reported and left stopped; the others carry on.
    public func reload(_ new: LivepushConfig) async -> ReloadReport {
        var report = ReloadReport()
        let newIDs = Set(new.cameras.map(\.id))
        for old in config.cameras where !newIDs.contains(old.id) {
            await cameras.removeValue(forKey: old.id)?.stop()
            report.removed.append(old.id)
        }
        for camera in new.cameras {
            // The new config's audio: a changed microphone restarts the camera that carries it.
            let audio = Self.audio(for: camera, in: new)
            if let running = cameras[camera.id], running.audio == audio {
                if running.config == camera {
                    report.unchanged.append(camera.id)
                    continue
                }
                if let changes = await running.applyInPlace(camera) {
                    report.updated.append(camera.id)
                    report.outputs[camera.id] = changes
                    continue
                }
            }
            let existed = cameras[camera.id] != nil
            await cameras.removeValue(forKey: camera.id)?.stop()
            do {
                cameras[camera.id] = try await launch(camera, audio: audio)
                if existed { report.restarted.append(camera.id) } else { report.added.append(camera.id) }
            } catch {
                report.failed[camera.id] = "\(error)"
                logger.error("camera failed to start after reload", metadata: ["camera": "\(camera.id)", "error": "\(error)"])
            }
        }
        config = new
        logger.info("config reloaded", metadata: ["unchanged": "\(report.unchanged)", "updated": "\(report.updated)", "restarted": "\(report.restarted)",
                                                  "added": "\(report.added)", "removed": "\(report.removed)"])
        return report
    }

    /// The configured microphone goes with the first camera (one process can open an ALSA device
    /// once); a camera streaming to a service that requires audio (YouTube, Twitch presets) gets
    /// a silent track when it has no microphone.
    private static func audio(for camera: CameraConfig, in config: LivepushConfig) -> AudioConfig? {
        if let audio = config.audio, camera.id == config.cameras.first?.id { return audio }
        let needsAudio = camera.outputs.contains { output in
            if case .rtmp(_, _, .some) = output.settings { return true }
            return false
        }
        return needsAudio ? AudioConfig(device: AudioSourceFactory.silence) : nil
    }

    private func launch(_ camera: CameraConfig, audio: AudioConfig?) async throws -> CameraRuntime {
        let runtime = try CameraRuntime(config: camera, audio: audio, factory: factory, metrics: metrics, beforeFirstFrames: beforeFirstFrames,
                                        fileRunAhead: fileRunAhead, logger: logger)
        try await runtime.start()
        return runtime
    }

    public func camera(_ id: String) throws(EngineError) -> CameraRuntime {
        guard let camera = cameras[id] else { throw .unknownCamera(id) }
        return camera
    }

    /// Frames encoded across all cameras.
    public var framesEncoded: Int { cameras.values.reduce(0) { $0 + $1.framesEncoded } }

    /// Frames encoded per running camera: the watchdog pets systemd only while every one grows. An
    /// on-demand camera that idles is left out (it encodes nothing by design), and counts as new when it starts.
    public var framesEncodedByCamera: [String: Int] { cameras.filter { !$0.value.isIdleOnDemand }.mapValues(\.framesEncoded) }

    public func status() -> StatusReport {
        let process = ProcessStats.sample() ?? ProcessStats.Sample(cpuSeconds: 0, residentBytes: 0)
        let percent = cpuMeter.update(process.cpuSeconds) * 100
        let reports = viewerLatency.annotate(config.cameras.compactMap { cameras[$0.id]?.report() })
        let report = StatusReport(uptimeSeconds: Double(MonotonicClock.nowNanos() - startedNanos) / 1e9,
                                  process: ProcessReport(cpuSeconds: process.cpuSeconds, cpuPercent: percent, residentBytes: process.residentBytes),
                                  cameras: reports)
        metrics?.update(from: report)
        return report
    }
}
