import Codec
import MediaCore
import Output
import Synchronization

/// An internal output that watches the encoder's product: bytes and frames for the encoded
/// bitrate and fps, and the capture → encoded latency of each frame (its timestamps are capture
/// times on CLOCK_MONOTONIC), reported to `onLatency` for the metrics histograms.
final class EncodedStreamProbe: StreamOutput {
    struct Totals: Sendable, Equatable {
        var frames = 0
        var bytes: Int64 = 0
        var keyFrames = 0
        var lastError: String?
    }
    private let totals = Mutex(Totals())
    private let onLatency: @Sendable (Int64) -> Void

    init(onLatency: @escaping @Sendable (Int64) -> Void) { self.onLatency = onLatency }

    var name: String { "probe" }
    /// It only counts bytes: rotation metadata never makes the shared encode turn pixels for it.
    var carriesRotationMetadata: Bool { true }
    func start(_ context: OutputStartContext) async throws {}
    func stop() async {}

    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        totals.withLock { totals in
            totals.frames += 1
            totals.bytes += Int64(frame.data.count)
            if frame.isKeyFrame { totals.keyFrames += 1 }
        }
        // A file running ahead of its clock is encoded before its frames' times: no latency.
        onLatency(max(0, MonotonicClock.nowNanos() - frame.ptsNanos))
    }

    func onEncoderError(_ error: CodecError) { totals.withLock { $0.lastError = "\(error)" } }

    var snapshot: Totals { totals.withLock { $0 } }
    var status: OutputStatus { OutputStatus(state: .running) }
}
