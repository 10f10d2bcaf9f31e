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
        #expect(sink.endOfStreamCount == 1, "the file's end reaches the sink once, before .stopped")
    }

    /// Paced playback decodes a frame ahead but converts it into a pooled buffer only when it is due
    /// (`FileSource`): while the encoder still holds the frame before, the decoded next one costs no
    /// second 1.4 MB buffer, so a steady 720p stream runs on one.
    @Test func decodingAheadTakesNoPooledBuffer() throws {
        let dir = try TemporaryDirectory()
        let decoder = try VideoFileDecoder(path: try Self.makeClip(in: dir))
        let pool = FrameBufferPool()
        let firstPts = try #require(try decoder.decodeNextPicture())
        #expect(pool.usage.allocated == 0)
        let held = try #require(try decoder.takePicture(pool: pool))
        #expect(pool.usage == (allocated: 1, inUse: 1))
        #expect(try decoder.takePicture(pool: pool) == nil, "the picture was taken; nothing is held")
        let secondPts = try #require(try decoder.decodeNextPicture())
        #expect(secondPts > firstPts)
        #expect(pool.usage.allocated == 1, "decoding ahead took a buffer while the frame before is held")
        withExtendedLifetime(held) {}
    }

    /// With `fileRunAhead` (a file that only records) frames come in bursts: each stamped with when
    /// it is due, so the spacing is the file's own to the nanosecond; the frames of a burst reach the
    /// sink before their time, the capturer waits for the sink after each; the first burst starts
    /// with the first frame, and the file's end waits for the last frame's time.
    @Test func runningAheadDeliversBurstsStampedWithTheirTimes() async throws {
        let dir = try TemporaryDirectory()
        var config = CaptureConfig()
        config.fileRunAhead = .seconds(1)
        let capturer = FileCapturer(source: FileSource(path: try Self.makeClip(in: dir)), config: config)
        let sink = CollectingSink(readsCodes: false)
        let started = MonotonicClock.nowNanos()
        _ = try await capturer.start(sink: sink)
        for await event in capturer.events where event == .stopped { break }
        let ended = MonotonicClock.nowNanos()
        let records = sink.all
        try #require(records.count == 60)
        let first = records[0].captureTimeNanos
        for (index, record) in records.enumerated() {
            let due = first + Int64(index) * 1_000_000_000 / 30
            #expect(abs(record.captureTimeNanos - due) <= 1_000, "frame \(index) is stamped \(record.captureTimeNanos - due) ns off its time")
        }
        let early = records.filter { $0.arrivalNanos < $0.captureTimeNanos - 1_000_000 }
        #expect(!early.isEmpty, "no frame came ahead of its time")
        #expect(early.contains { $0.captureTimeNanos < first + 1_000_000_000 }, "the first second is paced instead of a burst")
        #expect(sink.consumedWaitCount == 60)
        #expect(sink.endOfStreamCount == 1)
        #expect(ended - started >= records[59].captureTimeNanos - first, "the run lasts as long as the file")
        #expect(ended >= records[59].captureTimeNanos, "the end came before the last frame's time")
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
        #expect(sink.endOfStreamCount == 0, "a looping file has no end, and a stop is not one")
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

/// A file source opens one file, never what the file names: a concat list or an HLS playlist in
/// the config's `file:` (under its own extension or posing as a video) is refused and reads no
/// other local file (FFmpeg's concat demuxer allows relative names, its HLS demuxer local segments)
/// and fetches nothing over the network.
@Suite struct FileSourceConfinementTests {
    /// Starts a file source on `path`; the error it fails with, or nil when it played.
    static func open(_ path: String, config: CaptureConfig = CaptureConfig()) async throws -> CaptureError? {
        let capturer = FileCapturer(source: FileSource(path: path), config: config)
        do {
            _ = try await capturer.start(sink: CollectingSink(readsCodes: false))
            await capturer.stop()
            return nil
        } catch {
            return error
        }
    }

    /// Expects `name` in `dir` to be refused as unreadable, not played.
    static func expectRefused(_ name: String, in dir: TemporaryDirectory) async throws {
        let error = try await open(dir.file(name))
        guard case .fileUnreadable(let path, _) = error else {
            Issue.record("\(name): played the file it names (\(String(describing: error)))")
            return
        }
        #expect(path == dir.file(name))
    }

    @Test(arguments: ["list.ffconcat", "list.txt", "video.mp4", "video"])
    func aConcatListReadsNoOtherFile(name: String) async throws {
        let dir = try TemporaryDirectory()
        let clip = try FileCapturerTests.makeClip(in: dir)
        try "ffconcat version 1.0\nfile clip.mp4\n".write(toFile: dir.file(name), atomically: true, encoding: .utf8)
        try await Self.expectRefused(name, in: dir)
        #expect(try await Self.open(clip) == nil, "the clip itself plays")
    }

    @Test(arguments: ["live.m3u8", "video.mp4", "video.ts"])
    func aPlaylistReadsNoOtherFile(name: String) async throws {
        let dir = try TemporaryDirectory()
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
                              "-pix_fmt", "yuv420p", "-f", "mpegts", dir.file("segment.ts")])
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nsegment.ts\n#EXT-X-ENDLIST\n".write(toFile: dir.file(name), atomically: true, encoding: .utf8)
        try await Self.expectRefused(name, in: dir)
        #expect(try await Self.open(dir.file("segment.ts")) == nil, "the segment itself plays")
    }

    /// A web server on loopback that prints `connected` when anything connects (then answers 404),
    /// and its port: the witness that libavformat fetched, or did not fetch, a URL.
    static func webServerWitness() throws -> (listener: BackgroundProcess, port: String) {
        let listener = try BackgroundProcess("python3", ["-c", """
            import socket
            s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(4)
            print('port', s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept()
                print('connected', flush=True)
                c.recv(4096); c.sendall(b'HTTP/1.0 404 Not Found\\r\\nContent-Length: 0\\r\\n\\r\\n'); c.close()
            """])
        #expect(listener.waitUntil(timeoutSeconds: 10) { listener.output.contains("port ") })
        let port = listener.output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "0"
        return (listener, port)
    }

    /// (FFmpeg's own default already keeps a local file's playlist off the network; this keeps it so.)
    @Test(arguments: ["live.m3u8", "video.mp4"])
    func aPlaylistFetchesNothing(name: String) async throws {
        let dir = try TemporaryDirectory()
        let (listener, port) = try Self.webServerWitness()
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nhttp://127.0.0.1:\(port)/segment.ts\n#EXT-X-ENDLIST\n"
            .write(toFile: dir.file(name), atomically: true, encoding: .utf8)
        let error = try await Self.open(dir.file(name))
        #expect(error != nil, "\(name) played")
        #expect(!listener.output.contains("connected"), "\(name): libavformat fetched the playlist's URL")
    }

    /// A concat list that names a URL, with the protocols a config gives by default, fetches nothing.
    @Test func aConcatListNamingAURLFetchesNothingByDefault() async throws {
        let dir = try TemporaryDirectory()
        let (listener, port) = try Self.webServerWitness()
        try "ffconcat version 1.0\nfile http://127.0.0.1:\(port)/clip.mp4\n".write(toFile: dir.file("list.ffconcat"), atomically: true, encoding: .utf8)
        try await Self.expectRefused("list.ffconcat", in: dir)
        #expect(!listener.output.contains("connected"), "libavformat fetched the concat list's URL")
    }

    /// A `file:` source that is itself a URL is refused, before anything connects, with the default
    /// protocols (`file`), and fetched once the config allows its protocols (`source_protocols`).
    @Test func aURLIsFetchedOnlyWhenTheConfigAllowsItsProtocol() async throws {
        let (listener, port) = try Self.webServerWitness()
        let url = "http://127.0.0.1:\(port)/clip.mp4"
        #expect(try await Self.open(url) != nil, "played a URL with the default protocols")
        #expect(!listener.output.contains("connected"), "fetched with the default protocols")
        let widened = CaptureConfig(fileProtocols: ["file", "http", "tcp"])
        #expect(try await Self.open(url, config: widened) != nil, "the witness only answers 404")
        #expect(listener.waitUntil(timeoutSeconds: 10) { listener.output.contains("connected") }, "not fetched with http and tcp allowed")
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
