import Capture
import MediaCore
import Synchronization

/// The capturer every served camera runs: a ``ThreadedCapturer`` over a ``ResilientSource``
/// (so an unplugged camera shows the "no signal" card), with a ``FrameTap`` in front of the
/// encoder for fps and snapshots. Switching sources swaps the wrapped source between two frames,
/// whatever kinds the old and new sources are (test pattern ⇄ camera ⇄ file).
final class CameraCapturer: VideoCapturer {
    private let capturer: ThreadedCapturer<ResilientSource>
    private struct State {
        var tap: FrameTap?
        var source: ResilientSource
    }
    private let state: Mutex<State>

    init(source: any FrameSource, config: CaptureConfig) {
        let resilient = ResilientSource(source)
        capturer = ThreadedCapturer(source: resilient, config: config)
        state = Mutex(State(source: resilient))
    }

    var name: String { capturer.name }
    var events: AsyncStream<CaptureEvent> { capturer.events }
    var droppedFrames: Int { capturer.droppedFrames }

    func start(sink: any VideoSink) async throws(CaptureError) -> CaptureFormat {
        let tap = FrameTap(forwardingTo: sink)
        state.withLock { $0.tap = tap }
        return try await capturer.start(sink: tap)
    }

    func stop() async { await capturer.stop() }

    func switchSource(to source: any FrameSource) {
        let resilient = ResilientSource(source)
        state.withLock { $0.source = resilient }
        capturer.switchSource(to: resilient)
    }

    /// The source picked last (a failed switch keeps streaming the previous one).
    var currentSource: any FrameSource { state.withLock { $0.source.inner } }
    var isShowingPlaceholder: Bool { state.withLock { $0.source }.isShowingPlaceholder }
    var framesCaptured: Int { state.withLock { $0.tap }?.frameCount ?? 0 }

    func nextFrame(timeoutSeconds: Double) async -> VideoFrame? {
        await state.withLock { $0.tap }?.nextFrame(timeoutSeconds: timeoutSeconds)
    }
}
