import Config
import Logging
import MediaCore
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// The cameras as a swift-service-lifecycle `Service` beside the HTTP server: starts them, tells
/// systemd READY=1, pets the watchdog while frames are being encoded, reloads the config on
/// SIGHUP, sweeps old recordings, and on graceful shutdown (SIGTERM/SIGINT) stops every camera so
/// recordings are finalized.
public struct BroadcastService: Service {
    public let broadcaster: Broadcaster
    public let notifier: SystemdNotifier
    /// Reads the config again for SIGHUP; nil when there is no file (the embedded default).
    public let reloadConfig: (@Sendable () throws -> LivepushConfig)?
    public let logger: Logger
    /// Called once every camera runs (the front end says where to watch, starts its status line).
    public let onStarted: @Sendable () async -> Void
    /// Called as a graceful shutdown begins, before the cameras stop (`stream` sheds the running
    /// stream's file pages, so the stop's one-time teardown does not add to them at the end).
    public let onStopping: @Sendable () async -> Void

    public init(broadcaster: Broadcaster, notifier: SystemdNotifier = SystemdNotifier(),
                reloadConfig: (@Sendable () throws -> LivepushConfig)?, logger: Logger = Logger(label: "livepush.serve"),
                onStarted: @escaping @Sendable () async -> Void = {}, onStopping: @escaping @Sendable () async -> Void = {}) {
        self.broadcaster = broadcaster
        self.notifier = notifier
        self.reloadConfig = reloadConfig
        self.logger = logger
        self.onStarted = onStarted
        self.onStopping = onStopping
    }

    public func run() async throws {
        let hangups = SignalWatcher(SIGHUP)
        try await broadcaster.start()
        let cameras = await broadcaster.config.cameras.count
        notifier.notify("READY=1\nSTATUS=streaming \(cameras) camera(s)")
        logger.info("pipeline up", metadata: ["cameras": "\(cameras)"])
        await onStarted()
        await cancelWhenGracefulShutdown {
            await loop(hangups: hangups)
        }
        notifier.notify("STOPPING=1")
        logger.info("stopping: finalizing outputs")
        await onStopping()
        await broadcaster.stop()
    }

    /// Every 250 ms: a pending SIGHUP; at the watchdog interval: WATCHDOG=1 if every camera's frames
    /// advanced (``CameraProgressWatch``);
    /// once a minute: recording retention. Ends when the task is cancelled.
    private func loop(hangups: SignalWatcher) async {
        var handledHangups = 0
        var progress = CameraProgressWatch()
        var lastWatchdog = MonotonicClock.nowNanos()
        var lastSweep: Int64 = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            let now = MonotonicClock.nowNanos()
            if hangups.received != handledHangups {
                handledHangups = hangups.received
                await reload()
            }
            if let interval = notifier.watchdogIntervalSeconds, Double(now - lastWatchdog) / 1e9 >= min(interval, 1) {
                lastWatchdog = now
                let stalled = progress.stalledCameras(framesEncoded: await broadcaster.framesEncodedByCamera)
                if stalled.isEmpty {
                    notifier.notify("WATCHDOG=1")
                } else {
                    logger.warning("no frames encoded since the last watchdog check; not petting the watchdog",
                                   metadata: ["cameras": "\(stalled.joined(separator: ", "))"])
                }
            }
            if now - lastSweep >= 60_000_000_000 {
                lastSweep = now
                await sweepRecordings()
            }
        }
    }

    private func reload() async {
        guard let reloadConfig else {
            logger.notice("SIGHUP ignored: no --config file to reload")
            return
        }
        notifier.notify("RELOADING=1")
        do {
            let report = await broadcaster.reload(try reloadConfig())
            if !report.failed.isEmpty { logger.error("reload: some cameras failed", metadata: ["failed": "\(report.failed)"]) }
        } catch {
            logger.error("reload refused, keeping the running config", metadata: ["error": "\(error)"])
        }
        notifier.notify("READY=1")
    }

    private func sweepRecordings() async {
        for camera in await broadcaster.config.cameras {
            for output in camera.outputs {
                guard case let .record(path, _, retention?) = output.settings else { continue }
                for file in RecordingRetention.sweep(path: path, retentionSeconds: retention) {
                    logger.info("deleted old recording", metadata: ["camera": "\(camera.id)", "output": "\(output.id)", "file": "\(file)"])
                }
            }
        }
    }
}
