import Foundation
import MediaCore
import Testing
import TestSupport

/// Each libyuv conversion against FFmpeg (libswscale, via the ffmpeg CLI) converting the same input.
@Suite struct ConversionReferenceTests {
    static let width = 640, height = 480

    /// (our format, ffmpeg's pix_fmt name, whether the conversion is lossless)
    static let cases: [(PixelFormat, String, Bool)] = [
        (.i420, "yuv420p", true), (.nv12, "nv12", true), (.nv21, "nv21", true),
        (.yuyv, "yuyv422", false), (.uyvy, "uyvy422", false),
        (.rgb24, "rgb24", false), (.bgra, "bgra", false), (.argb, "argb", false),
    ]

    @Test(arguments: cases)
    func matchesFFmpeg(format: PixelFormat, ffmpegName: String, lossless: Bool) throws {
        let dir = try TemporaryDirectory()
        let raw = dir.file("in.raw"), reference = dir.file("ref.yuv")
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=1", "-frames:v", "1",
                              "-pix_fmt", ffmpegName, "-f", "rawvideo", raw])
        try FFmpegCLI.ffmpeg(["-f", "rawvideo", "-pix_fmt", ffmpegName, "-s", "\(Self.width)x\(Self.height)", "-i", raw,
                              "-sws_flags", "bicubic+accurate_rnd", "-pix_fmt", "yuv420p", "-f", "rawvideo", reference])
        let input = try FFmpegCLI.bytes(of: raw)
        let ours = try I420Buffer(width: Self.width, height: Self.height)
        try input.withUnsafeBytes { try ours.convert(from: RawPicture(bytes: $0, format: format, width: Self.width, height: Self.height)) }
        let expected = try TestPictures.i420(from: FFmpegCLI.bytes(of: reference), width: Self.width, height: Self.height)
        if lossless {
            #expect(ours.packedBytes() == expected.packedBytes())
        } else {
            let psnr = try ours.psnr(against: expected)
            #expect(psnr >= 45, "\(format)→I420 PSNR \(psnr) dB against libswscale")
        }
    }

    @Test func mjpegMatchesFFmpegDecoder() throws {
        let dir = try TemporaryDirectory()
        let jpeg = dir.file("in.jpg"), reference = dir.file("ref.yuv")
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=1", "-frames:v", "1",
                              "-pix_fmt", "yuvj420p", "-q:v", "2", jpeg])
        // Camera MJPEG is full range; like WebRTC, livepush takes its samples as they are.
        try FFmpegCLI.ffmpeg(["-i", jpeg, "-pix_fmt", "yuvj420p", "-f", "rawvideo", reference])
        let ours = try I420Buffer(width: Self.width, height: Self.height)
        let input = try FFmpegCLI.bytes(of: jpeg)
        try input.withUnsafeBytes { try ours.convert(from: RawPicture(bytes: $0, format: .mjpeg, width: Self.width, height: Self.height)) }
        let expected = try TestPictures.i420(from: FFmpegCLI.bytes(of: reference), width: Self.width, height: Self.height)
        let psnr = try ours.psnr(against: expected)
        #expect(psnr >= 45, "MJPEG decode PSNR \(psnr) dB against FFmpeg's decoder")
    }

    @Test func paddedStrideGivesSamePicture() throws {
        let width = 64, height = 32, padded = width * 2 + 40
        var packed = [UInt8](repeating: 0, count: width * 2 * height)
        var withPadding = [UInt8](repeating: 0xEE, count: padded * height)
        for row in 0..<height {
            for column in 0..<(width * 2) {
                let value = UInt8(truncatingIfNeeded: row * 7 + column * 3)
                packed[row * width * 2 + column] = value
                withPadding[row * padded + column] = value
            }
        }
        let a = try I420Buffer(width: width, height: height), b = try I420Buffer(width: width, height: height)
        try packed.withUnsafeBytes { try a.convert(from: RawPicture(bytes: $0, format: .yuyv, width: width, height: height)) }
        try withPadding.withUnsafeBytes {
            try b.convert(from: RawPicture(bytes: $0, format: .yuyv, width: width, height: height, bytesPerLine: padded))
        }
        #expect(a.packedBytes() == b.packedBytes())
    }
}
