import Codec
import Foundation
import MediaCore
import Recording
import Testing
import TestSupport

/// The `prft` box (ISO/IEC 14496-12 §8.16.5) before each `moof`: the wall-clock capture time of the
/// fragment's first video sample, checked against the frame code burned into that very picture.
/// Neither ffprobe 5.1 nor FFmpeg 8.1 (PyAV) reports a `prft`'s fields (no packet side data on read),
/// so ffprobe's trace shows the boxes are there and ``ProducerReferenceTimeBox`` reads their bytes.
/// `CaptureTimeRecordingReadBackTests` (EndToEndTests) checks the real `livepush stream --record`.
@Suite(.timeLimit(.minutes(2))) struct ProducerReferenceTimeTests {
    /// A fixed mapping, so the expected wall-clock time follows from the frame code alone.
    static let wallClock = WallClockMapping(offsetNanos: 1_700_000_000_000_000_000)

    @Test func everyFragmentStartsWithTheCaptureTimeOfItsFirstFrame() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("out.mp4")
        let recorder = MP4Recorder(settings: RecordingSettings(path: path), wallClock: Self.wallClock)
        try MP4RecorderTests.record(90, keyint: 1, into: recorder)
        recorder.finish()
        let boxes = try ProducerReferenceTimeBox.read(path)
        #expect(boxes.count >= 3, "one per fragment, a fragment per keyframe: \(boxes.count)")
        #expect(try ProducerReferenceTimeBox.ffprobeCount(path) == boxes.count, "ffprobe sees every prft")
        try Self.expectMatchesFrameCodes(boxes, of: path, in: dir)
    }

    /// Each segment file says where it starts in wall-clock time: its first fragment has a `prft` too
    /// (as every fragment does).
    @Test func eachSegmentStartsWithItsOwnCaptureTime() throws {
        let dir = try TemporaryDirectory()
        let recorder = MP4Recorder(settings: RecordingSettings(path: dir.file("seg.mp4"), segmentSeconds: 1), wallClock: Self.wallClock)
        try MP4RecorderTests.record(90, keyint: 1, into: recorder)
        recorder.finish()
        let files = recorder.statistics.files
        #expect(files.count == 3)
        for file in files {
            let boxes = try ProducerReferenceTimeBox.read(file)
            try Self.expectMatchesFrameCodes(boxes, of: file, in: dir)
        }
    }

    /// The byte layout, and each box's time against the frame code of the picture at its media time:
    /// within 1 ms (the muxer keeps whole milliseconds), never after it.
    static func expectMatchesFrameCodes(_ boxes: [ProducerReferenceTimeBox], of path: String, in dir: TemporaryDirectory,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fragments = try ProducerReferenceTimeBox.movieFragmentCount(path)
        #expect(!boxes.isEmpty && boxes.count == fragments, "a prft for every moof of \(path)",
                sourceLocation: sourceLocation)
        let codes = try MP4RecorderTests.frameCodes(of: path, in: dir)
        for (box, code) in try ProducerReferenceTimeBox.withFrameCodes(boxes, of: path, codes: codes) {
            #expect(box.size == 32 && box.version == 1 && box.flags == 24 && box.referenceTrackID == 1, "\(box)", sourceLocation: sourceLocation)
            #expect(box.followedByMovieFragment, "prft at \(box.offset) precedes a moof", sourceLocation: sourceLocation)
            guard let code else {
                Issue.record("no readable frame at media time \(box.mediaTime)", sourceLocation: sourceLocation)
                continue
            }
            let captured = Self.wallClock.wallClockNanos(forMonotonic: Int64(code.captureTimeNanos))
            let lag = captured - box.unixNanos
            #expect(lag >= 0 && lag < 1_000_000, "frame \(code.frameNumber): prft \(box.unixNanos) ns, captured \(captured) ns",
                    sourceLocation: sourceLocation)
        }
    }
}
