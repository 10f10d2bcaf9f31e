import Foundation
import MediaCore

/// A top-level `prft` box of an MP4 file, read byte by byte as ISO/IEC 14496-12 §8.16.5 lays it out:
/// size, `prft`, version, 24-bit flags, reference_track_ID, 64-bit NTP time, media_time (64-bit in
/// version 1). No FFmpeg reports these fields (ffprobe 5.1 and FFmpeg 8.1 attach nothing on read),
/// so the recording checks read them here (docs/capture-time.md).
public struct ProducerReferenceTimeBox: CustomStringConvertible, Sendable {
    public var offset: Int, size: Int, version: UInt8, flags: UInt32, referenceTrackID: UInt32, ntpTime: UInt64, mediaTime: UInt64
    /// Whether the next top-level box is a `moof`, the fragment the box dates.
    public var followedByMovieFragment: Bool

    /// The NTP time (32.32 seconds since 1900) as Unix nanoseconds, to the nearest nanosecond.
    public var unixNanos: Int64 {
        (Int64(ntpTime >> 32) - 2_208_988_800) * 1_000_000_000 + Int64(((ntpTime & 0xFFFF_FFFF) * 1_000_000_000 + (1 << 31)) >> 32)
    }

    public var description: String { "prft@\(offset) size \(size) v\(version) flags \(flags) track \(referenceTrackID) media time \(mediaTime)" }

    /// Every top-level `prft` of the file at `path`, in file order.
    public static func read(_ path: String) throws -> [ProducerReferenceTimeBox] {
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

    /// How many `moof` boxes (fragments) the file has.
    public static func movieFragmentCount(_ path: String) throws -> Int {
        topLevelBoxes(try FFmpegCLI.bytes(of: path)).filter { $0.type == "moof" }.count
    }

    /// How many `prft` boxes ffprobe's mov demuxer lists in its trace: a reader we did not write sees them.
    public static func ffprobeCount(_ path: String) throws -> Int {
        try ExternalTool.run("ffprobe", ["-v", "trace", path], timeoutSeconds: 30).errorOutput.matches(of: /type:'prft' parent:'root'/).count
    }

    /// Each box with the frame code of the picture at its `media_time`, by the video frames' pts as
    /// ffprobe gives them; `codes` are the decoded frames' codes in presentation order. A box whose
    /// media time names no frame, or no readable one, comes with nil.
    public static func withFrameCodes(_ boxes: [ProducerReferenceTimeBox], of path: String,
                                      codes: [FrameCode?]) throws -> [(box: ProducerReferenceTimeBox, code: FrameCode?)] {
        let probe = try FFmpegCLI.probe(path, extra: ["-select_streams", "v:0", "-show_frames", "-show_entries", "frame=pts"])
        let pts = (probe["frames"] as? [[String: Any]] ?? []).map { $0["pts"] as? Int ?? -1 }
        guard pts.count == codes.count else { throw ExternalTool.Failure(description: "\(pts.count) frames probed, \(codes.count) decoded") }
        return boxes.map { box in (box, pts.firstIndex(of: Int(box.mediaTime)).flatMap { codes[$0] }) }
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
