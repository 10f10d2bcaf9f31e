import Foundation
import MediaCore
import TestSupport

/// A received stream's recording read back independently of livepush: each decoded frame's size
/// and packet bytes (ffprobe) beside its burned-in frame code (``FrameCodeReadBack``, through the
/// code band alone). A code's wall-clock capture time places each frame on the test's own
/// timeline, so the bit rate a receiver got can be taken over any stretch of the test.
struct RecordedVideo {
    var frames: [(width: Int, height: Int, packetBytes: Int)]
    var codes: [FrameCode?]

    /// `width`: the pictures' width, which sets the code band's size.
    init(path: String, width: Int) throws {
        frames = try FFmpegCLI.videoFrames(path)
        let band = FrameCode.bandHeight(forWidth: width)
        codes = try FrameCodeReadBack.codes(of: path, width: width, height: band, filter: "crop=\(width):\(band):0:0")
    }

    /// Every code reads and the frame numbers only go up.
    var codesInOrder: Bool { FrameCodeReadBack.inOrder(codes.map { $0?.frameNumber }) }

    /// The distinct picture sizes, `1280x720`.
    var sizes: Set<String> { Set(frames.map { "\($0.width)x\($0.height)" }) }

    /// Wall-clock capture times (ms since the epoch) of the first and last readable frames.
    var capturedMillis: (first: Double, last: Double)? {
        guard let first = codes.lazy.compactMap({ $0 }).first, let last = codes.last(where: { $0 != nil }) ?? nil else { return nil }
        return (Double(first.wallClockMillis), Double(last.wallClockMillis))
    }

    /// The frames captured from `from` up to `to` (wall-clock ms) and the bit rate of their packets over that time.
    func window(fromMillis from: Double, toMillis to: Double) -> (frames: Int, bitsPerSecond: Double) {
        let inside = zip(frames, codes).filter { _, code in
            code.map { Double($0.wallClockMillis) >= from && Double($0.wallClockMillis) < to } ?? false
        }
        let bits = inside.reduce(0) { $0 + $1.0.packetBytes * 8 }
        return (inside.count, Double(bits) / ((to - from) / 1000))
    }
}
