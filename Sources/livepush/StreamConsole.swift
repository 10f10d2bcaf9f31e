import Engine
import Foundation
import MediaCore
import RTMPClient
import ServiceLifecycle
import Synchronization
import WebRTCTransport

/// `livepush stream`'s terminal: a live status line once the camera runs, the end of the run after
/// `--duration` (it then shuts the service group down), and the summary after the stop.
final class StreamConsole: Service, Sendable {
    private let broadcaster: Broadcaster
    private let camera: String
    private let durationSeconds: Double?
    private let started: AsyncStream<CameraRuntime>
    private let startedContinuation: AsyncStream<CameraRuntime>.Continuation
    private let runtime = Mutex<CameraRuntime?>(nil)

    init(broadcaster: Broadcaster, camera: String, durationSeconds: Double?) {
        self.broadcaster = broadcaster
        self.camera = camera
        self.durationSeconds = durationSeconds
        (started, startedContinuation) = AsyncStream<CameraRuntime>.makeStream()
    }

    /// The camera runs: the status line starts.
    func start(_ runtime: CameraRuntime) {
        self.runtime.withLock { $0 = runtime }
        startedContinuation.yield(runtime)
        startedContinuation.finish()
    }

    func run() async throws {
        let startedNanos = MonotonicClock.nowNanos()
        try? await cancelWhenGracefulShutdown { [started, durationSeconds] in
            guard let runtime = await started.first(where: { _ in true }) else { return }
            var status = StatusLine()
            defer { status.finish() }
            while !Task.isCancelled {
                let elapsed = Double(MonotonicClock.nowNanos() - startedNanos) / 1e9
                if let durationSeconds, elapsed >= durationSeconds { return }
                try await Task.sleep(for: .milliseconds(250))
                let report = StreamReport(runtime: runtime)
                status.show(report.line(uptimeSeconds: elapsed), state: report.states)
            }
        }
    }

    /// After the run: the encoder's and each output's totals, then per-kind detail (RTMP drops and
    /// send latency, what WHEP viewers got).
    func printSummary() {
        guard let runtime = runtime.withLock({ $0 }) else { return }
        print(StreamReport(runtime: runtime).summary)
        for output in runtime.outputs {
            if let rtmp = output.lastOutput as? RTMPOutput { RTMPOptions.printSendReport(of: rtmp) }
        }
        for output in runtime.outputs {
            if let whep = output.lastOutput as? WHEPService { WebRTCOptions.printReport(of: whep) }
        }
    }
}
