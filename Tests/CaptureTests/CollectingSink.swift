import MediaCore
import Synchronization

/// Keeps the metadata (and optionally the frames) a capturer delivers, for assertions.
final class CollectingSink: VideoSink {
    struct Record: Equatable {
        var frameNumber: UInt64
        var captureTimeNanos: Int64
        var width: Int
        var height: Int
        var code: FrameCode?
        /// When the frame reached the sink (CLOCK_MONOTONIC).
        var arrivalNanos: Int64
    }
    private let records = Mutex<[Record]>([])
    private let held = Mutex<[VideoFrame]>([])
    private let discarded = Mutex(0)
    private let ends = Mutex(0)
    private let consumedWaits = Mutex(0)
    /// Hold on to every frame (a consumer that never lets go of buffers).
    let holdsFrames: Bool
    let readsCodes: Bool

    init(holdsFrames: Bool = false, readsCodes: Bool = true) {
        self.holdsFrames = holdsFrames
        self.readsCodes = readsCodes
    }

    func onFrame(_ frame: VideoFrame) {
        let code = readsCodes ? FrameCode.read(from: frame.buffer) : nil
        records.withLock { $0.append(Record(frameNumber: frame.frameNumber, captureTimeNanos: frame.captureTimeNanos,
                                             width: frame.width, height: frame.height, code: code,
                                             arrivalNanos: MonotonicClock.nowNanos())) }
        if holdsFrames { held.withLock { $0.append(frame) } }
    }

    func onDiscardedFrame() { discarded.withLock { $0 += 1 } }

    func onEndOfStream() { ends.withLock { $0 += 1 } }

    func waitUntilConsumed(deadlineNanos: Int64) { consumedWaits.withLock { $0 += 1 } }

    var all: [Record] { records.withLock { $0 } }
    var discardedCount: Int { discarded.withLock { $0 } }
    /// How many times the source said it has no more frames.
    var endOfStreamCount: Int { ends.withLock { $0 } }
    /// How many times the capturer waited for this sink to be done with its frames.
    var consumedWaitCount: Int { consumedWaits.withLock { $0 } }

    /// Waits (bounded) until `count` frames arrived.
    func waitFor(count: Int, timeoutSeconds: Double = 10) async throws {
        let deadline = MonotonicClock.nowNanos() + Int64(timeoutSeconds * 1e9)
        while records.withLock({ $0.count }) < count && MonotonicClock.nowNanos() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
