import Foundation
import Logging
import MediaCore
import Synchronization

/// A ``VideoCapturer`` that runs a ``FrameSource`` on a dedicated thread.
///
/// Capture is blocking work (device polls, file decoding, pacing sleeps) that must not occupy the
/// Swift concurrency pool, so each capturer owns one thread. Frames come from a bounded
/// ``FrameBufferPool``: when consumers hold every buffer the frame is dropped and counted.
/// An error from the source is reported and ends the capture: riding out an unplugged or stalled
/// camera (the no-signal card, re-opening it) is ``ResilientSource``'s job, which
/// ``CameraCapturer`` puts around every source.
public final class ThreadedCapturer<Source: FrameSource>: VideoCapturer, @unchecked Sendable {
    public let events: AsyncStream<CaptureEvent>
    private let eventContinuation: AsyncStream<CaptureEvent>.Continuation
    private let config: CaptureConfig
    private let pool: FrameBufferPool
    /// Destination buffers for ``CaptureConfig/mirror`` (the source's buffer is released at once).
    private let mirrorPool: FrameBufferPool
    private let logger: Logger
    /// All mutable state, guarded: the running source, the stop flag, counters.
    private let state: Mutex<State>
    /// Serializes start/stop so overlapping calls see one outcome.
    private let lifecycle = LifecycleGate()
    /// The capture thread's name; nil names it for the source ("cap:test pattern").
    private let threadName: ThreadName?
    /// How long a source that runs ahead waits for its sink at most (a wedged encoder, which the
    /// encoder's watchdog reopens): then it goes on, and the encoder's queue drops and counts.
    static var consumerWaitLimitNanos: Int64 { 1_000_000_000 }

    private struct State {
        var source: Source
        var pendingSource: Source?
        var stopRequested = false
        var running = false
        var dropped = 0
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// `threadName` names the capture thread (``ThreadName``, "cap:door" for a served camera); nil names it "cap:" and the source's name.
    public init(source: Source, config: CaptureConfig, poolCapacity: Int = 8, threadName: ThreadName? = nil,
                logger: Logger = Logger(label: "livepush.capture")) {
        self.config = config
        self.threadName = threadName
        pool = FrameBufferPool(capacity: poolCapacity)
        mirrorPool = FrameBufferPool(capacity: poolCapacity)
        self.logger = logger
        state = Mutex(State(source: source))
        (events, eventContinuation) = AsyncStream.makeStream(of: CaptureEvent.self, bufferingPolicy: .bufferingNewest(64))
    }

    public var name: String { state.withLock { $0.source.name } }
    public var droppedFrames: Int { state.withLock { $0.dropped } }

    public func start(sink: any VideoSink) async throws(CaptureError) -> CaptureFormat {
        try await lifecycle.start { () throws(CaptureError) -> CaptureFormat in
            try self.config.validate()
            let source = self.state.withLock { $0.stopRequested = false; return $0.source }
            let format = try source.open(config: self.config)
            self.state.withLock { $0.running = true }
            self.eventContinuation.yield(.started(format))
            self.logger.info("capture started", metadata: ["source": "\(source.name)", "format": "\(format)"])
            let name = self.threadName ?? ThreadName(role: "cap", for: source.name)
            let thread = Thread {
                name.applyToCurrentThread()
                self.run(sink: sink)
            }
            thread.start()
            return format
        }
    }

    public func stop() async {
        await lifecycle.stop {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let finished = self.state.withLock { state -> Bool in
                    state.stopRequested = true
                    guard state.running else { return true }
                    state.exitWaiters.append(continuation)
                    return false
                }
                if finished { continuation.resume() }
            }
        }
    }

    /// Replaces the source while running (the "switch camera" button): the old one is closed and
    /// the new one opened between two frames; downstream sees a ``CaptureEvent/started(_:)`` with
    /// the new format and frames keep their monotonic timestamps.
    public func switchSource(to source: Source) {
        state.withLock { $0.pendingSource = source }
    }

    private func run(sink: any VideoSink) {
        var source = state.withLock { $0.source }
        while !state.withLock({ $0.stopRequested }) {
            if let next = state.withLock({ state -> Source? in defer { state.pendingSource = nil }; return state.pendingSource }) {
                source = switchTo(next, from: source)
                continue
            }
            do {
                switch try source.read(pool: pool) {
                case let .frame(frame):
                    guard let delivered = source.mirrorsAtSource ? frame : mirroredIfConfigured(frame) else {
                        state.withLock { $0.dropped += 1 }
                        sink.onDiscardedFrame()
                        continue
                    }
                    sink.onFrame(delivered)
                    if source.runsAheadOfClock {
                        sink.waitUntilConsumed(deadlineNanos: MonotonicClock.nowNanos() + Self.consumerWaitLimitNanos)
                    }
                case let .dropped(count):
                    state.withLock { $0.dropped += count }
                    for _ in 0..<count { sink.onDiscardedFrame() }
                case .idle:
                    continue
                case let .event(event):
                    eventContinuation.yield(event)
                case .endOfStream:
                    state.withLock { $0.stopRequested = true }
                    sink.onEndOfStream()
                }
            } catch {
                eventContinuation.yield(.error(error))
                logger.warning("capture error", metadata: ["source": "\(source.name)", "error": "\(error)"])
                state.withLock { $0.stopRequested = true }
            }
        }
        source.close()
        eventContinuation.yield(.stopped)
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running = false
            defer { state.exitWaiters = [] }
            return state.exitWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Applies ``CaptureConfig/mirror`` into a second pooled buffer; nil when none is free.
    private func mirroredIfConfigured(_ frame: VideoFrame) -> VideoFrame? {
        guard config.mirror else { return frame }
        guard let target = try? mirrorPool.makeBuffer(width: frame.width, height: frame.height),
              (try? frame.buffer.mirror(into: target)) != nil else { return nil }
        var mirrored = frame
        mirrored.buffer = target
        return mirrored
    }

    private func switchTo(_ next: Source, from current: Source) -> Source {
        current.close()
        do {
            let format = try next.open(config: config)
            state.withLock { $0.source = next }
            eventContinuation.yield(.started(format))
            logger.info("switched source", metadata: ["source": "\(next.name)", "format": "\(format)"])
            return next
        } catch {
            eventContinuation.yield(.error(error))
            logger.error("switch failed, keeping the previous source", metadata: ["source": "\(next.name)", "error": "\(error)"])
            do {
                let format = try current.open(config: config)
                eventContinuation.yield(.started(format))
            } catch {
                // A ResilientSource shows the card for a missing camera: only a setting it rejects is left.
                eventContinuation.yield(.error(error))
                state.withLock { $0.stopRequested = true }
            }
            return current
        }
    }
}
