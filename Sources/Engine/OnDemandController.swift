import Foundation
import Logging
import MediaCore
import Synchronization

/// Runs one on-demand camera's capture only while something wants it (``OnDemandPolicy``): every
/// 100 ms it reads the demand (running outputs, WHEP viewers, snapshot holds) and starts or
/// stops the capturer. Stopped, the capturer has closed its device (or ended its rpicam-vid
/// child) and the encoder thread waits for frames without using CPU; the outputs, and the WHEP
/// endpoint viewers arrive at, stay up. A start asks for a keyframe so the first viewer sees a
/// picture at once.
final class OnDemandController: Sendable {
    /// The camera's side: what wants it now, and how to start (resume capture and ask for an
    /// IDR) or stop (close capture) it. Start and stop are never called concurrently.
    struct Camera: Sendable {
        var demand: @Sendable () -> OnDemandPolicy.Demand
        var start: @Sendable () async throws -> Void
        var stop: @Sendable () async -> Void
    }

    /// What status and metrics report.
    struct Snapshot: Sendable, Equatable {
        var isIdle: Bool
        /// Times the camera started for a viewer, an output or a snapshot (the first start at launch not counted).
        var starts: Int
        var stops: Int
    }

    private struct State {
        var policy: OnDemandPolicy
        var heldUntilNanos: Int64?
        var snapshot = Snapshot(isIdle: false, starts: 0, stops: 0)
        var loop: Task<Void, Never>?
    }

    static let pollInterval = Duration.milliseconds(100)
    private let camera: Camera
    private let logger: Logger
    private let state: Mutex<State>

    /// Takes over a camera that runs now (it opened at start, so a broken device fails then).
    init(idleSeconds: Double, camera: Camera, logger: Logger) {
        self.camera = camera
        self.logger = logger
        state = Mutex(State(policy: OnDemandPolicy(graceSeconds: idleSeconds, running: true)))
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// Starts deciding; the first decision (at once) idles a camera nobody wants yet.
    func begin() {
        let task = Task { [self] in
            while !Task.isCancelled {
                await tick()
                try? await Task.sleep(for: Self.pollInterval)
            }
        }
        state.withLock { $0.loop = task }
    }

    /// Stops deciding and waits for a start or stop in progress; the camera is left as it is.
    func end() async {
        let task = state.withLock { state in
            defer { state.loop = nil }
            return state.loop
        }
        task?.cancel()
        await task?.value
    }

    /// Wants frames for `seconds` from now (a snapshot); the camera starts at the next decision.
    func hold(seconds: Double) {
        let until = MonotonicClock.nowNanos() + Int64(seconds * 1e9)
        state.withLock { $0.heldUntilNanos = max($0.heldUntilNanos ?? 0, until) }
    }

    private func tick() async {
        var demand = camera.demand()
        let now = MonotonicClock.nowNanos()
        let action = state.withLock { state in
            demand.heldUntilNanos = state.heldUntilNanos
            return state.policy.decide(demand, nowNanos: now)
        }
        switch action {
        case .keep:
            return
        case .start:
            logger.info("on demand: starting capture", metadata: ["for": "\(demand.wanters(atNanos: now))"])
            // Counted before the start, which returns only after the first frames may have reached a
            // waiting snapshot: whoever got a frame then sees the camera running and this start counted.
            state.withLock { $0.snapshot.isIdle = false; $0.snapshot.starts += 1 }
            do {
                try await camera.start()
            } catch {
                logger.error("on demand: capture failed to start; trying again", metadata: ["error": "\(error)"])
                state.withLock { $0.policy.startFailed(); $0.snapshot.isIdle = true; $0.snapshot.starts -= 1 }
            }
        case .stop:
            await camera.stop()
            state.withLock { $0.snapshot.isIdle = true; $0.snapshot.stops += 1 }
            logger.info("on demand: capture stopped, camera idle", metadata: ["reason": "\(OnDemandPolicy.idleReason)"])
        }
    }
}
