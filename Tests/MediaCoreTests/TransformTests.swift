import MediaCore
import Testing
import TestSupport

/// Rotation, mirror, crop and scale against FFmpeg's filters on the same picture.
@Suite struct TransformTests {
    static let width = 320, height = 240

    /// Our transform of a testsrc2 picture and FFmpeg's filter of it, as I420.
    func compare(filter: String, outputSize: (Int, Int), _ transform: (I420Buffer, I420Buffer) throws -> Void) throws -> (I420Buffer, I420Buffer) {
        let dir = try TemporaryDirectory()
        let raw = dir.file("in.yuv"), reference = dir.file("ref.yuv")
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=1", "-frames:v", "1",
                              "-pix_fmt", "yuv420p", "-f", "rawvideo", raw])
        try FFmpegCLI.ffmpeg(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(Self.width)x\(Self.height)", "-i", raw,
                              "-vf", filter, "-pix_fmt", "yuv420p", "-f", "rawvideo", reference])
        let source = try TestPictures.i420(from: FFmpegCLI.bytes(of: raw), width: Self.width, height: Self.height)
        let ours = try I420Buffer(width: outputSize.0, height: outputSize.1)
        try transform(source, ours)
        return (ours, try TestPictures.i420(from: FFmpegCLI.bytes(of: reference), width: outputSize.0, height: outputSize.1))
    }

    @Test(arguments: [(VideoRotation.clockwise90, "transpose=clock"), (.clockwise180, "hflip,vflip"), (.clockwise270, "transpose=cclock")])
    func rotationMatchesFFmpeg(rotation: VideoRotation, filter: String) throws {
        let size = rotation.swapsDimensions ? (Self.height, Self.width) : (Self.width, Self.height)
        let (ours, expected) = try compare(filter: filter, outputSize: size) { try $0.rotate(by: rotation, into: $1) }
        #expect(ours.packedBytes() == expected.packedBytes())
    }

    @Test func mirrorMatchesHflip() throws {
        let (ours, expected) = try compare(filter: "hflip", outputSize: (Self.width, Self.height)) { try $0.mirror(into: $1) }
        #expect(ours.packedBytes() == expected.packedBytes())
    }

    @Test func cropMatchesFFmpegCrop() throws {
        let (ours, expected) = try compare(filter: "crop=128:96:64:32", outputSize: (128, 96)) { try $0.crop(x: 64, y: 32, into: $1) }
        #expect(ours.packedBytes() == expected.packedBytes())
    }

    @Test func downscaleCloseToFFmpegArea() throws {
        let (ours, expected) = try compare(filter: "scale=160:120:flags=area", outputSize: (160, 120)) { try $0.scale(into: $1) }
        let psnr = try ours.psnr(against: expected)
        #expect(psnr >= 35, "box-filter downscale PSNR \(psnr) dB against FFmpeg area scaling")
    }

    @Test func fourQuarterTurnsAreIdentity() throws {
        let original = try TestPictures.gradient(width: 48, height: 32)
        var current = original
        for _ in 0..<4 {
            let next = try I420Buffer(width: current.height, height: current.width)
            try current.rotate(by: .clockwise90, into: next)
            current = next
        }
        #expect(current.packedBytes() == original.packedBytes())
        #expect(throws: MediaError.sizeMismatch(expectedWidth: 32, expectedHeight: 48, width: 48, height: 32)) {
            try original.rotate(by: .clockwise90, into: I420Buffer(width: 48, height: 32))
        }
    }
}
