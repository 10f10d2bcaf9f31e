import Foundation
import Harness
import MediaCore

/// Reads back the frame numbers the test pattern burns into each picture (``MediaCore/FrameCode``)
/// from any file ffmpeg decodes (FLV, MPEG-TS, MP4): the check that a stream arrived whole and in order.
public enum FrameCodeReadBack {
    /// The frame number of each decoded frame (nil where unreadable), decoding only the luma plane.
    /// `filter` (an ffmpeg `-vf` chain) may cut each picture down first: `width` × `height` is then
    /// what it leaves (a long 1080p recording read through its code band alone stays small).
    public static func frameNumbers(of path: String, width: Int, height: Int, filter: String? = nil) throws -> [UInt32?] {
        try codes(of: path, width: width, height: height, filter: filter).map { $0?.frameNumber }
    }

    /// The whole code of each decoded frame (nil where unreadable): its number and its capture time,
    /// on the wall clock too, which places a recorded frame on the test's own timeline.
    public static func codes(of path: String, width: Int, height: Int, filter: String? = nil) throws -> [FrameCode?] {
        let dir = try TemporaryDirectory()
        try FFmpegCLI.ffmpeg(["-i", path, "-an", "-fps_mode", "passthrough"] + (filter.map { ["-vf", $0] } ?? [])
                             + ["-pix_fmt", "gray", "-f", "rawvideo", dir.file("luma.raw")])
        let luma = try Data(contentsOf: URL(fileURLWithPath: dir.file("luma.raw")))
        let frameSize = width * height
        return luma.withUnsafeBytes { bytes -> [FrameCode?] in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return [] }
            return stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize).map { offset in
                FrameCode.read(luma: base + offset, stride: width, width: width, height: height)
            }
        }
    }

    /// Whether the numbers are all readable and strictly increasing (gaps allowed where frames were dropped).
    public static func inOrder(_ numbers: [UInt32?]) -> Bool {
        let known = numbers.compactMap { $0 }
        return known.count == numbers.count && zip(known, known.dropFirst()).allSatisfy { $0 < $1 }
    }
}
