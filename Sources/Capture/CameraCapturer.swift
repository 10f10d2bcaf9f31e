import MediaCore
import Synchronization

/// The one capturer of every command that captures (`serve`, `stream`, `run`, `snapshot`): a
/// ``ThreadedCapturer`` over a ``ResilientSource`` (so an unplugged camera shows the "no signal"
/// card and comes back, reported on ``events``), with a ``FrameTap`` in front of the
/// encoder for fps and snapshots, after the optional frame processor (the text overlay). Switching sources swaps the wrapped source between two frames,
/// whatever kinds the old and new sources are (test pattern ⇄ camera ⇄ file).
/// The source comes from ``SourceFactory``.
public final class CameraCapturer: VideoCapturer {
    private let capturer: ThreadedCapturer<ResilientSource>
    private struct State {
        var tap: FrameTap?
        var source: ResilientSource
    }
    private let state: Mutex<State>
    private let processor: (any VideoFrameProcessor)?
    private let noSignal: ResilientSource.NoSignal

    /// `poolCapacity`: captured frames that may be held at once; size it for every encoder queue
    /// that holds them (several renditions), or frames are dropped at capture. `threadName` names
    /// the capture thread ("cap:door"; nil: "cap:" and the source's name). `noSignal`: what a
    /// missing or lost camera becomes, the card (streams) or the error (`livepush snapshot`).
    public init(source: any FrameSource, config: CaptureConfig, processor: (any VideoFrameProcessor)? = nil, poolCapacity: Int = 8,
                threadName: ThreadName? = nil, noSignal: ResilientSource.NoSignal = .showCard) {
        self.processor = processor
        self.noSignal = noSignal
        let resilient = ResilientSource(source, noSignal: noSignal)
        capturer = ThreadedCapturer(source: resilient, config: config, poolCapacity: poolCapacity, threadName: threadName)
        state = Mutex(State(source: resilient))
    }

    public var name: String { capturer.name }
    public var events: AsyncStream<CaptureEvent> { capturer.events }
    public var droppedFrames: Int { capturer.droppedFrames }

    public func start(sink: any VideoSink) async throws(CaptureError) -> CaptureFormat {
        let tap = FrameTap(forwardingTo: sink, processor: processor)
        state.withLock { $0.tap = tap }
        return try await capturer.start(sink: tap)
    }

    public func stop() async { await capturer.stop() }

    /// Closes the source (the device, the rpicam-vid child) while the camera idles (on demand),
    /// keeping the frame tap: ``resume()`` goes on counting into it and feeding the same sink.
    public func suspend() async { await capturer.stop() }

    /// Opens the source again after ``suspend()``, into the sink ``start(sink:)`` was given.
    public func resume() async throws(CaptureError) -> CaptureFormat {
        guard let tap = state.withLock({ $0.tap }) else {
            throw .invalidSetting(name: "resume", value: "", hint: "the capturer was never started")
        }
        return try await capturer.start(sink: tap)
    }

    public func switchSource(to source: any FrameSource) {
        let resilient = ResilientSource(source, noSignal: noSignal)
        state.withLock { $0.source = resilient }
        capturer.switchSource(to: resilient)
    }

    /// The source picked last (a failed switch keeps streaming the previous one).
    public var currentSource: any FrameSource { state.withLock { $0.source.inner } }
    public var isShowingPlaceholder: Bool { state.withLock { $0.source }.isShowingPlaceholder }
    public var framesCaptured: Int { state.withLock { $0.tap }?.frameCount ?? 0 }

    public func nextFrame(timeoutSeconds: Double) async -> VideoFrame? {
        await state.withLock { $0.tap }?.nextFrame(timeoutSeconds: timeoutSeconds)
    }
}
