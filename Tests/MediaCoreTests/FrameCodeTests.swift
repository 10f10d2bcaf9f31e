import Foundation
import MediaCore
import Testing
import TestSupport

@Suite struct FrameCodeTests {
    @Test(arguments: [(152, 8), (640, 360), (1280, 720), (1920, 1080)])
    func roundTripsOnRawPictures(width: Int, height: Int) throws {
        let buffer = try TestPictures.gradient(width: width, height: height)
        let code = FrameCode(frameNumber: 0xDEAD_BEEF, captureTimeNanos: 0x0123_4567_89AB_CDEF, wallClockMillis: 1_795_000_000_000)
        try code.burn(into: buffer)
        #expect(FrameCode.read(from: buffer) == code)
    }

    @Test func damagedCodeReadsAsNone() throws {
        let buffer = try TestPictures.gradient(width: 320, height: 240)
        try FrameCode(frameNumber: 7, captureTimeNanos: 9, wallClockMillis: 11).burn(into: buffer)
        let size = FrameCode.blockSize(forWidth: 320)
        buffer.fillRect(x: 0, y: 0, width: size * 3, height: size, color: .white)
        #expect(FrameCode.read(from: buffer) == nil)
        #expect(FrameCode.read(from: try TestPictures.gradient(width: 320, height: 240)) == nil)
    }

    /// A black band decodes to 19 zero bytes, which the CRC (initial value 0) accepts: it must read as no code.
    @Test func blackBandIsNoCode() throws {
        let buffer = try I420Buffer(width: 640, height: 360)
        buffer.fillRect(x: 0, y: 0, width: 640, height: 360, color: .black)
        #expect(FrameCode.read(from: buffer) == nil)
    }

    @Test func tooNarrowFrame() throws {
        #expect(throws: MediaError.frameTooSmallForCode(width: 100, minimumWidth: 152)) {
            try FrameCode(frameNumber: 1, captureTimeNanos: 1, wallClockMillis: 1).burn(into: I420Buffer(width: 100, height: 100))
        }
    }

    /// Codes burned into 60 frames survive libx264 at 1 Mbps, 720p (encoded and decoded by the ffmpeg CLI).
    @Test func survivesH264At1Mbps() throws {
        let width = 1280, height = 720, count = 60
        let dir = try TemporaryDirectory()
        var raw = [UInt8]()
        var codes: [FrameCode] = []
        for index in 0..<count {
            let buffer = try TestPictures.gradient(width: width, height: height, seed: index * 5)
            let code = FrameCode(frameNumber: UInt32(1000 + index), captureTimeNanos: UInt64(5_000_000_000 + index * 33_333_333),
                                 wallClockMillis: UInt64(1_795_000_000_000 + index * 33))
            try code.burn(into: buffer)
            codes.append(code)
            raw += buffer.packedBytes()
        }
        try raw.withUnsafeBytes { try Data($0).write(to: dir.url.appendingPathComponent("in.yuv")) }
        try FFmpegCLI.ffmpeg(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-r", "30", "-i", dir.file("in.yuv"),
                              "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1M", "-maxrate", "1M", "-bufsize", "1M", dir.file("out.mp4")])
        try FFmpegCLI.ffmpeg(["-i", dir.file("out.mp4"), "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "rawvideo", dir.file("out.yuv")])
        let decoded = try FFmpegCLI.bytes(of: dir.file("out.yuv"))
        let frameBytes = RawPicture.packedSize(format: .i420, width: width, height: height)
        #expect(decoded.count == frameBytes * count)
        var readBack: [FrameCode?] = []
        for index in 0..<(decoded.count / frameBytes) {
            let picture = try TestPictures.i420(from: Array(decoded[(index * frameBytes)..<((index + 1) * frameBytes)]), width: width, height: height)
            readBack.append(FrameCode.read(from: picture))
        }
        #expect(readBack == codes.map { Optional($0) })
    }
}
