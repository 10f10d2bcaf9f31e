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
        let trace = try ExternalTool.run("ffprobe", ["-v", "trace", path], timeoutSeconds: 30).errorOutput
        #expect(trace.matches(of: /type:'prft' parent:'root'/).count == boxes.count, "ffprobe sees every prft")
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
        let probe = try FFmpegCLI.probe(path, extra: ["-select_streams", "v:0", "-show_frames", "-show_entries", "frame=pts"])
        let pts = (probe["frames"] as? [[String: Any]] ?? []).map { $0["pts"] as? Int ?? -1 }
        let codes = try MP4RecorderTests.frameCodes(of: path, in: dir)
        #expect(pts.count == codes.count && !boxes.isEmpty, "\(pts.count) frames, \(codes.count) codes", sourceLocation: sourceLocation)
        #expect(boxes.count == (try ProducerReferenceTimeBox.movieFragmentCount(path)), "a prft for every moof of \(path)",
                sourceLocation: sourceLocation)
        for box in boxes {
            #expect(box.size == 32 && box.version == 1 && box.flags == 24 && box.referenceTrackID == 1, "\(box)", sourceLocation: sourceLocation)
            #expect(box.followedByMovieFragment, "prft at \(box.offset) precedes a moof", sourceLocation: sourceLocation)
            guard let index = pts.firstIndex(of: Int(box.mediaTime)), let code = codes[index] else {
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

/// A top-level `prft` box of a file, read byte by byte as ISO/IEC 14496-12 §8.16.5 lays it out:
/// size, `prft`, version, 24-bit flags, reference_track_ID, 64-bit NTP time, media_time (64-bit in version 1).
struct ProducerReferenceTimeBox: CustomStringConvertible {
    var offset: Int, size: Int, version: UInt8, flags: UInt32, referenceTrackID: UInt32, ntpTime: UInt64, mediaTime: UInt64
    var followedByMovieFragment: Bool

    /// The NTP time as Unix nanoseconds.
    var unixNanos: Int64 {
        (Int64(ntpTime >> 32) - 2_208_988_800) * 1_000_000_000 + Int64(((ntpTime & 0xFFFF_FFFF) * 1_000_000_000 + (1 << 31)) >> 32)
    }

    var description: String { "prft@\(offset) size \(size) v\(version) flags \(flags) track \(referenceTrackID) media time \(mediaTime)" }

    static func read(_ path: String) throws -> [ProducerReferenceTimeBox] {
        let bytes = try FFmpegCLI.bytes(of: path)
        let tops = topLevelBoxes(bytes)
        return zip(tops, tops.dropFirst().map(Optional.some) + [nil]).compactMap { box, next in
            guard box.type == "prft", box.size >= 32 else { return nil }
            let body = Array(bytes[(box.offset + 8)..<(box.offset + box.size)])
            func number(_ range: Range<Int>) -> UInt64 { body[range].reduce(0) { $0 << 8 | UInt64($1) } }
            return ProducerReferenceTimeBox(offset: box.offset, size: box.size, version: body[0], flags: UInt32(number(1..<4)),
                                            referenceTrackID: UInt32(number(4..<8)), ntpTime: number(8..<16),
                                            mediaTime: number(16..<24), followedByMovieFragment: next?.type == "moof")
        }
    }

    static func movieFragmentCount(_ path: String) throws -> Int {
        topLevelBoxes(try FFmpegCLI.bytes(of: path)).filter { $0.type == "moof" }.count
    }

    static func topLevelBoxes(_ bytes: [UInt8]) -> [(offset: Int, size: Int, type: String)] {
        var boxes: [(offset: Int, size: Int, type: String)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard size >= 8, offset + size <= bytes.count else { break }
            boxes.append((offset, size, String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)))
            offset += size
        }
        return boxes
    }
}
