import MediaCore
import Testing
@testable import Pipeline

/// What ends a run's media (`stream --duration`, a file's end) and what passes to the encoders.
@Suite struct MediaLengthLimitTests {
    @Test func frameCapturedPastTheLengthEndsTheMediaForGood() throws {
        let sink = FirstFramesActionTests.CountingSink()
        let limit = MediaLengthLimit(next: sink)
        let buffer = try I420Buffer(width: 16, height: 16)
        limit.end(afterSeconds: 0.09)
        for index in 0..<6 { limit.onFrame(VideoFrame(buffer: buffer, captureTimeNanos: Int64(index) * 33_333_333)) }
        #expect(limit.ended)
        #expect(sink.counts.withLock { $0.frames } == 3, "frames at 0, 33 and 67 ms pass; 100 ms and later do not")
    }

    /// A file played to its end ends the media without a length, and no frame is held back; an
    /// on-demand camera that opens the file again starts the media again.
    @Test func aSourcesEndEndsTheMediaUntilFramesComeAgain() throws {
        let sink = FirstFramesActionTests.CountingSink()
        let limit = MediaLengthLimit(next: sink)
        let buffer = try I420Buffer(width: 16, height: 16)
        limit.onFrame(VideoFrame(buffer: buffer, captureTimeNanos: 0))
        #expect(!limit.ended)
        limit.onEndOfStream()
        #expect(limit.ended)
        limit.onFrame(VideoFrame(buffer: buffer, captureTimeNanos: 60_000_000_000))
        #expect(!limit.ended)
        #expect(sink.counts.withLock { $0.frames } == 2)
    }
}
