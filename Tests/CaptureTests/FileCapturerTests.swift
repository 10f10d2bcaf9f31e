import Capture
import Foundation
import LibAV
import MediaCore
import Testing
import TestSupport

@Suite struct FileCapturerTests {
    /// A 2 s, 30 fps H.264 MP4 made by the ffmpeg CLI.
    static func makeClip(in dir: TemporaryDirectory, size: String = "320x240") throws -> String {
        let path = dir.file("clip.mp4")
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
                              "-pix_fmt", "yuv420p", path])
        return path
    }

    @Test func decodesEveryFrameAtTheFilesRate() async throws {
        let dir = try TemporaryDirectory()
        let capturer = FileCapturer(source: FileSource(path: try Self.makeClip(in: dir)), config: CaptureConfig())
        let sink = CollectingSink(readsCodes: false)
        let format = try await capturer.start(sink: sink)
        #expect(format.size == VideoSize(width: 320, height: 240) && format.framesPerSecond == 30)
        var events: [CaptureEvent] = []
        for await event in capturer.events {
            events.append(event)
            if event == .stopped { break }
        }
        let records = sink.all
        #expect(records.count == 60)
        #expect(records.allSatisfy { $0.width == 320 && $0.height == 240 })
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.captureTimeNanos < $1.captureTimeNanos })
        let span = records[records.count - 1].captureTimeNanos - records[0].captureTimeNanos
        #expect(span >= 59 * 33_333_333 * 9 / 10, "paced at 30 fps, not as fast as decoding")
        #expect(events.contains(.stopped))
    }

    @Test func loopingKeepsTimeMonotonic() async throws {
        let dir = try TemporaryDirectory()
        let capturer = FileCapturer(source: FileSource(path: try Self.makeClip(in: dir), loops: true), config: CaptureConfig())
        let sink = CollectingSink(readsCodes: false)
        _ = try await capturer.start(sink: sink)
        try await sink.waitFor(count: 75, timeoutSeconds: 15)
        await capturer.stop()
        let records = sink.all
        #expect(records.count >= 75)
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.captureTimeNanos < $1.captureTimeNanos })
    }

    @Test func missingUnreadableAndAudioOnlyFiles() async throws {
        let dir = try TemporaryDirectory()
        let missing = FileCapturer(source: FileSource(path: dir.file("nope.mp4")), config: CaptureConfig())
        await #expect(throws: CaptureError.fileNotFound(path: dir.file("nope.mp4"))) { try await missing.start(sink: CollectingSink()) }

        try "not a video".write(toFile: dir.file("notes.txt"), atomically: true, encoding: .utf8)
        let text = FileCapturer(source: FileSource(path: dir.file("notes.txt")), config: CaptureConfig())
        await #expect { try await text.start(sink: CollectingSink()) } throws: { error in
            guard case let .fileUnreadable(path, _) = error as? CaptureError else { return false }
            return path == dir.file("notes.txt")
        }

        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", dir.file("tone.m4a")])
        let audio = FileCapturer(source: FileSource(path: dir.file("tone.m4a")), config: CaptureConfig())
        await #expect(throws: CaptureError.noVideoStream(path: dir.file("tone.m4a"))) { try await audio.start(sink: CollectingSink()) }
    }
}

@Suite struct SnapshotTests {
    @Test(arguments: ["shot.jpg", "shot.png"])
    func writesAnImageFFmpegReadsBack(name: String) async throws {
        let dir = try TemporaryDirectory()
        let capturer = TestPatternCapturer(source: TestPatternSource(), config: CaptureConfig(size: VideoSize(width: 640, height: 360)))
        let sink = FirstFrameSink()
        _ = try await capturer.start(sink: sink)
        let frame = try #require(await sink.wait(timeoutSeconds: 5))
        await capturer.stop()
        try ImageFileWriter.write(frame.buffer, to: dir.file(name))
        let stream = try #require((try FFmpegCLI.probe(dir.file(name))["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == (name.hasSuffix("png") ? "png" : "mjpeg"))
        #expect(stream["width"] as? Int == 640 && stream["height"] as? Int == 360)
        try FFmpegCLI.ffmpeg(["-i", dir.file(name), "-pix_fmt", "yuv420p", "-f", "rawvideo", dir.file("back.yuv")])
        let back = try I420Buffer(width: 640, height: 360)
        let bytes = try FFmpegCLI.bytes(of: dir.file("back.yuv"))
        try bytes.withUnsafeBytes { try back.convert(from: RawPicture(bytes: $0, format: .i420, width: 640, height: 360)) }
        #expect(try back.psnr(against: frame.buffer) >= 30)
        #expect(FrameCode.read(from: back)?.frameNumber == 0)
    }

    @Test func unknownExtensionIsRefused() {
        #expect(throws: FFmpegError.self) { try ImageFileWriter.ImageFormat(forPath: "shot.bmp") }
    }
}
