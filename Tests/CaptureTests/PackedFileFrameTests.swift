import Foundation
import CFFmpeg
@testable import LibAV
import MediaCore
import Testing
import TestSupport

/// Raw camera recordings (YUYV, UYVY, RGB, BGRA, ARGB in QuickTime) decode through libyuv's
/// conversions, the same ones a V4L2 camera's buffers take, not through libswscale.
@Suite struct PackedFileFrameTests {
    static let width = 64, height = 48

    @Test(arguments: [("yuyv422", PixelFormat.yuyv), ("uyvy422", .uyvy), ("rgb24", .rgb24), ("bgra", .bgra), ("argb", .argb)])
    func aPackedFrameConvertsAsTheCameraPathDoes(ffmpegName: String, format: PixelFormat) throws {
        let dir = try TemporaryDirectory()
        let source = "testsrc2=size=\(Self.width)x\(Self.height):rate=30:duration=0.1"
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", source, "-frames:v", "1", "-c:v", "rawvideo", "-pix_fmt", ffmpegName, dir.file("clip.mov")])
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", source, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", ffmpegName, dir.file("frame.raw")])
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", source, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", dir.file("frame.yuv")])

        let decoder = try VideoFileDecoder(path: dir.file("clip.mov"))
        guard case let .picture(decoded, _) = try decoder.next(pool: FrameBufferPool()) else {
            Issue.record("no picture decoded from the \(ffmpegName) file")
            return
        }
        let raw = try Data(contentsOf: URL(fileURLWithPath: dir.file("frame.raw")))
        let expected = try I420Buffer(width: Self.width, height: Self.height)
        try raw.withUnsafeBytes { bytes in
            try expected.convert(from: RawPicture(bytes: bytes, format: format, width: Self.width, height: Self.height))
        }
        let differing = zip(decoded.packedBytes(), expected.packedBytes()).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) bytes differ from libyuv's \(format) conversion of the same picture")

        // And the right byte order: luma within 3 of FFmpeg's own conversion of the same picture.
        let reference = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file("frame.yuv"))).prefix(Self.width * Self.height))
        let luma = decoded.packedBytes().prefix(Self.width * Self.height)
        let meanDifference = zip(luma, reference).map { abs(Int($0) - Int($1)) }.reduce(0, +) / reference.count
        #expect(meanDifference <= 3, "mean luma difference \(meanDifference) against ffmpeg's yuv420p")
    }

    @Test func planarAndUnknownFormatsAreNotTakenAsPacked() {
        #expect(DecodedFrameCopier.packedFormat(AV_PIX_FMT_YUV422P) == nil)
        #expect(DecodedFrameCopier.packedFormat(AV_PIX_FMT_NV12) == nil)
        #expect(DecodedFrameCopier.packedFormat(AV_PIX_FMT_BGR24) == nil)
    }
}
