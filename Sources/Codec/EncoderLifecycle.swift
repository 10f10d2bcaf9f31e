import Synchronization

/// Opens and closes of libavcodec encoders, one at a time in the process.
///
/// SVT-AV1 1.4 (Debian's, through FFmpeg 5.1) corrupts the heap ("corrupted size vs. prev_size",
/// "double free or corruption") when one instance opens or closes while another does the same on
/// another thread: renditions reopening at once (a keyframe on request, ``VideoEncoder/encode(_:emit:)``),
/// or suites running side by side. Encoding stays parallel; only these rare steps wait for each other.
enum EncoderLifecycle {
    private static let lock = Mutex(())

    static func serialized<Result>(_ body: () -> Result) -> Result {
        lock.withLock { _ in body() }
    }
}
