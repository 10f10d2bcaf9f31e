import Foundation
import Harness
import Testing
import TestSupport

/// The real `livepush stream --record --segment` records the test pattern; every fragment of every
/// segment file starts with a `prft` box ffprobe lists, whose capture time must match the frame code
/// burned into the picture at its media time: within 1 ms of the code's wall-clock milliseconds
/// (both whole milliseconds, from the same monotonic capture stamp) — docs/capture-time.md.
@Suite(.timeLimit(.minutes(2))) struct CaptureTimeRecordingReadBackTests {
    @Test func everySegmentAndFragmentCarriesItsCaptureTime() throws {
        let dir = try TemporaryDirectory()
        let livepush = try LivepushStreamTests.stream([], seconds: 3, extra: ["--record", dir.file("rec.mp4"), "--segment", "1s"])
        _ = try LivepushStreamTests.finish(livepush, within: 45)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".mp4") }.sorted().map(dir.file)
        #expect(files.count >= 2, "segments: \(files)")
        for file in files {
            let boxes = try ProducerReferenceTimeBox.read(file)
            let fragments = try ProducerReferenceTimeBox.movieFragmentCount(file)
            #expect(!boxes.isEmpty && boxes.count == fragments, "a prft for every moof of \(file)")
            #expect(try ProducerReferenceTimeBox.ffprobeCount(file) == boxes.count, "ffprobe lists every prft of \(file)")
            let codes = try FrameCodeReadBack.codes(of: file, width: LivepushStreamTests.width, height: LivepushStreamTests.height)
            for (box, code) in try ProducerReferenceTimeBox.withFrameCodes(boxes, of: file, codes: codes) {
                #expect(box.version == 1 && box.flags == 24 && box.referenceTrackID == 1 && box.followedByMovieFragment, "\(box)")
                guard let code else {
                    Issue.record("\(file): no readable frame at media time \(box.mediaTime)")
                    continue
                }
                let offset = box.unixNanos - Int64(code.wallClockMillis) * 1_000_000
                #expect(abs(offset) <= 1_000_000, "frame \(code.frameNumber): prft \(box.unixNanos) ns vs code \(code.wallClockMillis) ms")
            }
        }
    }
}
