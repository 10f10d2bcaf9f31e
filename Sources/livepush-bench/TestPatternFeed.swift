import Capture
import Foundation
import MediaCore
#if canImport(Glibc)
import Glibc
#endif

/// livepush's test pattern, paced on its own clock with the frame code burned in, written as raw
/// I420 frames into a named pipe: what ffmpeg encodes when the WebRTC benchmark compares it with
/// livepush. The pipe is removed when the value goes away.
final class TestPatternFeed {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-\(UUID().uuidString).yuv").path
    private let size: VideoSize

    init(size: VideoSize) throws {
        self.size = size
        guard mkfifo(path, 0o600) == 0 else { throw ValidationErrorText("mkfifo \(path): errno \(errno)") }
    }

    deinit { unlink(path) }

    /// Waits (bounded) for the reader to open the pipe, then writes frames for at most `seconds`
    /// while `wanted()` holds; a write blocks while the reader is behind, as a full queue would.
    func write(seconds: Double, while wanted: () -> Bool) throws {
        var descriptor: Int32 = -1
        let openDeadline = MonotonicClock.nowNanos() + 20_000_000_000
        while descriptor < 0, wanted(), MonotonicClock.nowNanos() < openDeadline {
            descriptor = open(path, O_WRONLY | O_NONBLOCK)  // ENXIO until the reader has it open
            if descriptor < 0 { usleep(20_000) }
        }
        guard descriptor >= 0 else { throw ValidationErrorText("the encoder never opened \(path)") }
        _ = fcntl(descriptor, F_SETFL, 0)
        // A reader that quits makes a write fail with EPIPE instead of killing the benchmark.
        signal(SIGPIPE, SIG_IGN)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let source = TestPatternSource()
        _ = try source.open(config: CaptureConfig(size: size, fallbackSizes: [], framesPerSecond: 30))
        defer { source.close() }
        let pool = FrameBufferPool(capacity: 2)
        let end = MonotonicClock.nowNanos() + Int64(seconds * 1e9)
        while MonotonicClock.nowNanos() < end, wanted() {
            switch try source.read(pool: pool) {
            case .frame(let frame): try handle.write(contentsOf: frame.buffer.packedBytes())
            case .dropped, .idle, .event: continue
            case .endOfStream: return
            }
        }
    }
}
