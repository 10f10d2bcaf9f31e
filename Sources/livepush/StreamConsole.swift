import Engine
import Foundation
import MediaCore
import ServiceLifecycle
import Synchronization

/// `livepush stream`'s terminal: a live status line once the camera runs, the end of the run after
/// `--duration` or at the end of a file source (it then shuts the service group down), and the
/// summary after the stop.
final class StreamConsole: Service, Sendable {
    private let broadcaster: Broadcaster
    private let camera: String
    private let durationSeconds: Double?
    private let started: AsyncStream<CameraRuntime>
    private let startedContinuation: AsyncStream<CameraRuntime>.Continuation
    private let runtime = Mutex<CameraRuntime?>(nil)
    private let onEnd: @Sendable () -> Void
    /// How long past `--duration` a run waits for a frame that ends the media before it stops anyway.
    static let sourceGraceSeconds = 5.0

    /// `onEnd` runs when the media's length or end ends the run, before the service group shuts down.
    init(broadcaster: Broadcaster, camera: String, durationSeconds: Double?, onEnd: @escaping @Sendable () -> Void = {}) {
        self.broadcaster = broadcaster
        self.camera = camera
        self.durationSeconds = durationSeconds
        self.onEnd = onEnd
        (started, startedContinuation) = AsyncStream<CameraRuntime>.makeStream()
    }

    /// The camera runs: the status line starts.
    func start(_ runtime: CameraRuntime) {
        self.runtime.withLock { $0 = runtime }
        startedContinuation.yield(runtime)
        startedContinuation.finish()
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown { [started, durationSeconds, onEnd] in
            guard let runtime = await started.first(where: { _ in true }) else { return }
            // --duration is media time: the pipeline passes frames captured up to that long after
            // the first and no later, so a 10 s run holds 10 s of pictures however long opening the
            // device, the encoders and the outputs, or the stop, take on a busy Pi. A file played to
            // its end ends the run at once, with or without a length; a source that stops delivering
            // ends it `sourceGraceSeconds` after the length. The uptime counts from when the camera runs.
            let startedNanos = MonotonicClock.nowNanos()
            if let durationSeconds { runtime.endMedia(afterSeconds: durationSeconds) }
            if let pick = runtime.config.encoder.pick { print("encoder auto → \(pick)") }
            var status = StatusLine()
            defer { status.finish() }
            while !Task.isCancelled {
                let elapsed = Double(MonotonicClock.nowNanos() - startedNanos) / 1e9
                if runtime.mediaEnded || durationSeconds.map({ elapsed >= $0 + Self.sourceGraceSeconds }) == true {
                    onEnd()
                    return
                }
                try await Task.sleep(for: .milliseconds(250))
                let report = StreamReport(camera: runtime.report())
                status.show(report.line(uptimeSeconds: elapsed), state: report.states)
            }
        }
    }

    /// After the run: the encoder's and each output's totals, then what each kind alone can tell
    /// (RTMP drops and send latency, what WHEP viewers got). One write, after what print buffered:
    /// log records on stderr (the same file in tests) cannot split it.
    func printSummary() {
        guard let runtime = runtime.withLock({ $0 }) else { return }
        let reports = runtime.outputs.compactMap { $0.lastOutput?.runReport }.map { "  \($0)" }
        let text = ([StreamReport(camera: runtime.report()).summary] + reports).joined(separator: "\n") + "\n"
        fflush(nil)
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
