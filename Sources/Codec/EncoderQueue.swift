import Foundation
import MediaCore
import Synchronization

/// Runs a ``VideoEncoder`` on its own thread behind a bounded queue, so the capture thread never
/// waits for the encoder.
///
/// When the encoder cannot keep up and `capacity` frames are already waiting, a new frame is
/// dropped *before* encoding and counted in ``droppedFrames`` — never queued without bound (a frame
/// encoded late is worth less than the next one). Dropping also returns the pooled buffer to the
/// capturer at once. A frame submitted as a keyframe (a ``KeyFrameSchedule``'s) is never the one
/// dropped: it takes the place of the newest waiting frame that is not one, so renditions keyed by
/// one schedule key the same captured frames however far behind each is. Key-frame requests, bitrate
/// changes and the switch to turning pixels travel on the same thread, between frames.
///
/// With CPU adaptation (``CPUAdaptationSettings``) the thread also times each encode against the
/// frame interval and watches its own drops: on overload it steps down the ``AdaptationLadder``
/// (smaller pictures, then fewer frames), and back up after sustained headroom, reopening the
/// encoder between frames so the next one is an IDR with SPS/PPS. Each rendition's queue adapts alone.
public final class EncoderQueue: @unchecked Sendable {
    public struct Statistics: Sendable, Equatable {
        public var submitted = 0
        public var encoded = 0
        public var dropped = 0
        /// Times the watchdog reopened a wedged encoder (``VideoEncoder/stallRestarts``).
        public var restarts = 0
        /// Where CPU adaptation has the encode now (nil when it is off).
        public var adaptation: CPUAdaptation.Status?
        /// How the encoded pictures reached the encoder: as captured, turned, scaled (``VideoEncoder/preparation``).
        public var preparation = FramePreparationCounts()

        /// These counts with `other`'s added (a camera's renditions together); the adaptation stays
        /// this encode's own.
        public func adding(_ other: Statistics) -> Statistics {
            var total = self
            total.submitted += other.submitted
            total.encoded += other.encoded
            total.dropped += other.dropped
            total.restarts += other.restarts
            total.preparation = total.preparation.adding(other.preparation)
            return total
        }
    }

    public let capacity: Int
    private let sink: any EncodedVideoSink
    /// Told (on the encoder thread) each time the watchdog reopened a wedged encoder, with the count so far.
    private let onRestart: (@Sendable (Int) -> Void)?
    /// Told (on the encoder thread) each time CPU adaptation steps, to log it.
    private let onAdaptationStep: (@Sendable (CPUAdaptation.Step) -> Void)?
    /// The camera's other renditions adapting with this one (nil: it adapts alone).
    private let peers: (group: CPUAdaptationPeers, index: Int)?
    /// Guards every `var` below (and `wakeup`'s flag); the encoder itself is touched only by the
    /// encoder thread. Its wait serves ``finish()`` and ``waitUntilEncoded(deadlineNanos:)``.
    private let condition = NSCondition()
    /// Sleeps the encoder thread while no frame waits; a submit wakes it only then.
    private let wakeup = ConsumerWakeup()
    /// At most `capacity` frames, each with whether it is to be a keyframe; its storage is reserved once.
    private var pending: [(frame: VideoFrame, keyFrame: Bool)] = []
    private var keyFrameRequested = false
    /// Set by ``requestKeyFrame(capturedFrom:)``: the capture time from which the next frame is an IDR.
    private var keyFrameCapturedFromNanos: Int64?
    private var requestedBitrate: Int?
    private var rotatePixelsRequested = false
    private var finishing = false
    private var stopped = false
    private var threadExited = false
    /// The encoder thread holds a frame taken from `pending` (cleared when it comes back for the next).
    private var encoding = false
    /// Threads in ``waitUntilEncoded(deadlineNanos:)``: only then does the encoder thread broadcast.
    private var encodedWaiters = 0
    private var stats = Statistics()

    /// Opens the encoder now (so bad settings throw here) and starts its thread. With `adaptation`
    /// the encode steps down under CPU overload (see the type's comment); `thresholds` tune its detector;
    /// `peers` makes it one of a camera's renditions adapting together, lowest priority first;
    /// `sharedScaler` scales frames once for it and its siblings of the same size (``VideoEncoder/init(settings:sharedScaler:)``);
    /// `threadName` names its thread (what `top -H` and /proc/PID/task/*/comm show; ``threadName(rendition:)``).
    public init(settings: VideoEncoderSettings, capacity: Int = 3, sink: any EncodedVideoSink,
                adaptation: CPUAdaptationSettings? = nil, thresholds: CPUOveruseDetector.Thresholds = CPUOveruseDetector.Thresholds(),
                peers: (group: CPUAdaptationPeers, index: Int)? = nil, sharedScaler: SharedScaler? = nil, threadName: String = "livepush.enc",
                onRestart: (@Sendable (Int) -> Void)? = nil,
                onAdaptationStep: (@Sendable (CPUAdaptation.Step) -> Void)? = nil) throws(CodecError) {
        guard capacity > 0 else { throw .invalidSetting(setting: "encoder-queue", value: "\(capacity)", reason: "must hold at least 1 frame") }
        if adaptation != nil, settings.sizeChange == .reopen {
            // That encoder follows each frame's size, which would undo every step at once.
            throw .invalidSetting(setting: "adapt", value: "cpu", reason: "needs an encoder that scales frames to its size (sizeChange .scale)")
        }
        self.capacity = capacity
        pending.reserveCapacity(capacity)
        self.sink = sink
        self.onRestart = onRestart
        self.onAdaptationStep = onAdaptationStep
        self.peers = adaptation == nil ? nil : peers
        let cpu = adaptation.map {
            CPUAdaptation(width: settings.width, height: settings.height, framesPerSecond: settings.framesPerSecond,
                          settings: $0, thresholds: thresholds)
        }
        stats.adaptation = cpu?.status
        if let cpu, let peers = self.peers { cpu.report(to: peers) }
        let name = ThreadName(threadName)
        // Opened on its own thread, so the threads the encoder library starts (x264's workers and
        // lookahead) are born with this thread's name and `top -H` or a benchmark can give each
        // rendition's whole encode; this initializer waits for the outcome, so bad settings still throw here.
        let opening = EncoderOpening()
        let thread = Thread { [self] in
            name.applyToCurrentThread()
            let encoder: VideoEncoder
            do throws(CodecError) {
                encoder = try VideoEncoder(settings: settings, sharedScaler: sharedScaler)
            } catch {
                opening.finish(error)
                return
            }
            opening.finish(nil)
            run(encoder, adaptation: cpu)
        }
        thread.start()
        if let error = opening.wait() { throw error }
    }

    /// "enc:720p": the encoder thread's name for rendition `name`, cut to Linux's 15 bytes (``ThreadName``), so the
    /// renditions bench (and `top -H`) can give each rendition's encoder CPU on its own.
    public static func threadName(rendition name: String) -> String { ThreadName(role: "enc", for: name).description }

    /// Queues a frame, to be encoded as an IDR if `keyFrame`; false when it was dropped because the
    /// queue is full or stopped. A keyframe meeting a full queue drops the newest waiting frame that
    /// is not one instead (it is dropped itself only when every waiting frame is a keyframe).
    @discardableResult
    public func submit(_ frame: VideoFrame, keyFrame: Bool = false) -> Bool {
        condition.lock()
        stats.submitted += 1
        guard !stopped, !finishing else {
            stats.dropped += 1
            condition.unlock()
            return false
        }
        if pending.count < capacity {
            pending.append((frame, keyFrame))
        } else if keyFrame, let displaced = pending.lastIndex(where: { !$0.keyFrame }) {
            pending.remove(at: displaced)
            pending.append((frame, keyFrame))
            stats.dropped += 1
        } else {
            stats.dropped += 1
            condition.unlock()
            return false
        }
        wakeup.unlockWaking(condition)
        return true
    }

    /// The next frame the encoder takes is encoded as an IDR.
    public func requestKeyFrame() {
        condition.lock()
        keyFrameRequested = true
        condition.unlock()
    }

    /// The first frame captured at or after `captureTimeNanos` (CLOCK_MONOTONIC) that the encoder takes
    /// is encoded as an IDR. Renditions asked with one time make their keyframes on the same captured
    /// frame however far each encoder is behind, so tracks sent together stay aligned (multitrack RTMP).
    public func requestKeyFrame(capturedFrom captureTimeNanos: Int64) {
        condition.lock()
        keyFrameCapturedFromNanos = min(keyFrameCapturedFromNanos ?? captureTimeNanos, captureTimeNanos)
        condition.unlock()
    }

    /// From the next frame the encoder takes on, it turns the pixels instead of passing rotation
    /// through (with an IDR), for good: see ``VideoEncoder/rotatePixels()``. Cheap; any thread.
    public func rotatePixels() {
        condition.lock()
        rotatePixelsRequested = true
        condition.unlock()
    }

    /// Applied before the next frame is encoded.
    public func setBitrate(_ bitsPerSecond: Int) {
        condition.lock()
        requestedBitrate = bitsPerSecond
        condition.unlock()
    }

    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return stats
    }

    public var droppedFrames: Int { statistics.dropped }

    /// Returns once every frame submitted so far is encoded and let go (its pooled buffer free
    /// again), the encoder thread has ended, or `deadlineNanos` (CLOCK_MONOTONIC) has passed.
    /// For a source that runs ahead of its clock: it waits here rather than fill the queue and drop.
    public func waitUntilEncoded(deadlineNanos: Int64) {
        condition.lock()
        encodedWaiters += 1
        while !pending.isEmpty || encoding, !threadExited {
            let remaining = deadlineNanos - MonotonicClock.nowNanos()
            guard remaining > 0, condition.wait(until: Date(timeIntervalSinceNow: Double(remaining) / 1e9)) else { break }
        }
        encodedWaiters -= 1
        condition.unlock()
    }

    /// Encodes what is queued, flushes the encoder and waits for its thread to end.
    public func finish() {
        condition.lock()
        finishing = true
        wakeup.unlockWaking(condition)
        condition.lock()
        while !threadExited { condition.wait() }
        condition.unlock()
    }

    private enum Work {
        case frame(VideoFrame, keyFrame: Bool, bitrate: Int?, rotatePixels: Bool)
        case flush
    }

    /// Called for each frame after the last one's work has ended, so by then nothing of the
    /// encoder thread holds that frame: a waiter told here finds its buffer free.
    private func nextWork() -> Work {
        condition.lock()
        encoding = false
        if encodedWaiters > 0, pending.isEmpty { condition.broadcast() }
        wakeup.sleep(holding: condition) { !pending.isEmpty || finishing }
        defer { condition.unlock() }
        guard !pending.isEmpty else { return .flush }
        let (frame, keyFrame) = pending.removeFirst()
        encoding = true
        if keyFrame { keyFrameRequested = true }
        if let from = keyFrameCapturedFromNanos, frame.captureTimeNanos >= from {
            keyFrameRequested = true
            keyFrameCapturedFromNanos = nil
        }
        defer { keyFrameRequested = false; requestedBitrate = nil; rotatePixelsRequested = false }
        return .frame(frame, keyFrame: keyFrameRequested, bitrate: requestedBitrate, rotatePixels: rotatePixelsRequested)
    }

    private func run(_ encoder: VideoEncoder, adaptation: CPUAdaptation?) {
        let emit: (EncodedVideoFrame) -> Void = { [sink] in sink.onEncodedFrame($0) }
        var adaptation = adaptation
        do throws(CodecError) {
            loop: while true {
                switch nextWork() {
                case let .frame(frame, keyFrame, bitrate, rotatePixels):
                    if let bitrate { try encoder.setBitrate(bitrate) }
                    if rotatePixels { encoder.rotatePixels() }
                    if keyFrame { encoder.requestKeyFrame() }
                    if adaptation?.keeps(frame) == false {
                        condition.lock()
                        stats.adaptation = adaptation?.status
                        condition.unlock()
                        continue loop
                    }
                    if let peers, let overload = peers.group.takeRequestedStepDown(peers.index) {
                        try apply(adaptation?.stepDown(for: overload, nowNanos: MonotonicClock.nowNanos(), peers: peers), adaptation, encoder)
                    }
                    let restarts = encoder.stallRestarts
                    let startNanos = MonotonicClock.nowNanos()
                    try encoder.encode(frame, emit: emit)
                    if encoder.stallRestarts != restarts { onRestart?(encoder.stallRestarts) }
                    condition.lock()
                    stats.encoded += 1
                    stats.restarts = encoder.stallRestarts
                    stats.preparation = encoder.preparation
                    let dropped = stats.dropped
                    condition.unlock()
                    if adaptation != nil { try adapt(&adaptation, encoder, startNanos: startNanos, totalDroppedFrames: dropped) }
                case .flush:
                    try encoder.flush(emit: emit)
                    break loop
                }
            }
        } catch {
            sink.onEncoderError(error)
        }
        condition.lock()
        stopped = true
        stats.dropped += pending.count
        pending.removeAll()
        threadExited = true
        condition.broadcast()
        condition.unlock()
    }
}

extension EncoderQueue {
    /// Feeds the adaptation one frame's numbers and applies the step it decides.
    private func adapt(_ adaptation: inout CPUAdaptation?, _ encoder: VideoEncoder, startNanos: Int64,
                       totalDroppedFrames: Int) throws(CodecError) {
        let now = MonotonicClock.nowNanos()
        let step = adaptation?.afterFrame(encodeNanos: now - startNanos, totalDroppedFrames: totalDroppedFrames, nowNanos: now, peers: peers)
        try apply(step, adaptation, encoder)
    }

    /// The encoder reopens at the step's rung (size and rate) before the next frame; logged and counted.
    private func apply(_ step: CPUAdaptation.Step?, _ adaptation: CPUAdaptation?, _ encoder: VideoEncoder) throws(CodecError) {
        guard let step else { return }
        try encoder.adapt(width: step.to.width, height: step.to.height, framesPerSecond: step.to.framesPerSecond)
        onAdaptationStep?(step)
        condition.lock()
        stats.adaptation = adaptation?.status
        condition.unlock()
    }
}

/// The encoder thread's word on opening its encoder: nil once it opened, or why it could not.
private final class EncoderOpening: Sendable {
    private let outcome = Mutex<CodecError??>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ error: CodecError?) {
        outcome.withLock { $0 = .some(error) }
        done.signal()
    }

    func wait() -> CodecError? {
        done.wait()
        return outcome.withLock { $0 ?? nil }
    }
}

extension EncoderQueue: VideoSink {
    /// Lets a capturer feed the encoder directly (drops are counted here).
    public func onFrame(_ frame: VideoFrame) { submit(frame) }
}
