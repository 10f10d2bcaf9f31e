import Foundation
import Testing
import TestSupport

/// The real `livepush stream` binary publishing to real servers on 127.0.0.1, checked with ffprobe/ffmpeg.
@Suite(.serialized, .timeLimit(.minutes(3))) struct LivepushStreamTests {
    static let width = 640, height = 360, fps = 30.0, keyint = 2.0

    static func stream(_ urls: [String], seconds: Int, source: String = "testpattern", bitrate: String = "1000k",
                       extra: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess("timeout", ["-k", "5", "\(seconds + 40)", try LivepushBinary.path(), "stream",
                                          "--source", source, "--size", "\(width)x\(height)", "--fps", "30",
                                          "--keyint", "2", "--bitrate", bitrate, "--duration", "\(seconds)s",
                                          "--reconnect-delay", "1s", "--reconnect-max-delay", "2s"] + extra + urls)
    }

    static func finish(_ process: BackgroundProcess, within seconds: Double) throws -> String {
        let status = process.wait(timeoutSeconds: seconds)
        #expect(status == 0, "livepush exited \(String(describing: status)): \(process.errorOutput.suffix(3000))")
        return process.output + process.errorOutput
    }

    static func expectValidStream(_ path: String, minimumSeconds: Double, maximumSeconds: Double, forcedKeyFrames: Bool = false) throws {
        let flv = try FLVInspection(path: path)
        #expect(flv.codec == "h264")
        #expect(flv.width == width && flv.height == height)
        let duration = flv.durationSeconds(fps: fps)
        // Millisecond FLV timestamps make ffprobe's r_frame_rate guess unstable; count frames instead.
        #expect(abs(Double(flv.packets.count) / duration - fps) < 0.6, "\(flv.packets.count) frames in \(duration) s (ffprobe guessed \(flv.frameRate))")
        #expect(duration >= minimumSeconds && duration <= maximumSeconds, "duration \(duration) s")
        #expect(flv.packets.first?.isKey == true, "the stream starts with a keyframe")
        #expect(flv.timestampsIncrease)
        // The first interval may be short: a new connection asks the encoder for an IDR at once.
        #expect(flv.keyFrameIntervals.first.map { $0 <= keyint + 0.1 } ?? true)
        for interval in flv.keyFrameIntervals.dropFirst() {
            // After a reconnect the requested IDR sits between the encoder's scheduled ones.
            let expected = forcedKeyFrames ? interval <= keyint + 0.1 : abs(interval - keyint) < 0.1
            #expect(expected, "keyframe interval \(interval) s")
        }
        let numbers = try FLVInspection.frameNumbers(of: path, width: width, height: height)
        #expect(numbers.count == flv.packets.count)
        #expect(FLVInspection.inOrder(numbers), "frame codes: \(numbers.prefix(10))…")
    }

    /// The AAC track rode along: 48 kHz stereo.
    static func expectAACAudio(_ path: String) throws {
        let streams = try #require(try FFmpegCLI.probe(path)["streams"] as? [[String: Any]])
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" }, "no audio stream in \(streams)")
        #expect(audio["codec_name"] as? String == "aac" && audio["sample_rate"] as? String == "48000" && audio["channels"] as? Int == 2, "\(audio)")
    }

    /// 10 s to nginx-rtmp, read back by a player from the server and from nginx's own recording.
    @Test func publishesToNginx() throws {
        let nginx = try NginxRTMPServer()
        let player = try TemporaryDirectory()
        let livepush = try Self.stream([nginx.url(key: "secretkey123")], seconds: 10, extra: ["--audio", "tone"])
        #expect(LocalPort.waitUntil(10) { !nginx.recordings.isEmpty }, "nginx never recorded a publish")
        // The late player gets audio at once but video only from the next keyframe (every 2 s), so it
        // must probe longer than a keyframe interval to find the video stream.
        let reader = try BackgroundProcess("timeout", ["-k", "2", "30", "ffmpeg", "-nostdin", "-v", "error", "-analyzeduration", "4000000",
                                                       "-i", nginx.url(key: "secretkey123"), "-c", "copy", "-y", player.file("played.flv")])
        let log = try Self.finish(livepush, within: 40)
        #expect(!log.contains("secretkey123"), "the key must not be printed")
        #expect(log.contains("0 dropped, 0 reconnects"), "\(log.suffix(600))")
        // The delivery report: healthy throughout, nothing reconnected, what nginx acknowledged.
        #expect(log.contains("delivery: healthy") && log.contains("; 0 reconnects;") && log.contains("acknowledged"), "\(log.suffix(800))")
        #expect(reader.wait(timeoutSeconds: 15) != nil, "the player did not see the end of the stream")
        #expect(nginx.recordings.count == 1)
        try Self.expectValidStream(try #require(nginx.recordings.first), minimumSeconds: 9.5, maximumSeconds: 10.5)
        try Self.expectAACAudio(try #require(nginx.recordings.first))
        // The player joined late, at a keyframe: a shorter but equally valid stream.
        try Self.expectValidStream(player.file("played.flv"), minimumSeconds: 5, maximumSeconds: 10.5)
    }

    /// ffmpeg's own RTMP server (`ffmpeg -listen 1`) as a second, independent implementation, beside nginx
    /// and a local recording. Its server answers FCPublish with a bare `onFCPublish` (no transaction id),
    /// which the command decoder once rejected, dropping the connection before publish.
    @Test func publishesToFFmpegAndNginxAtOnce() throws {
        let port = try LocalPort.free()
        let dir = try TemporaryDirectory()
        let ffmpeg = try BackgroundProcess("timeout", ["-k", "2", "40", "ffmpeg", "-nostdin", "-v", "error", "-listen", "1",
                                                       "-i", "rtmp://127.0.0.1:\(port)/app/key", "-c", "copy", "-y", dir.file("ffmpeg.flv")])
        let nginx = try NginxRTMPServer()
        // A probe connection would be the one connection ffmpeg accepts: look for the listening socket instead.
        #expect(LocalPort.waitUntilListeningSocket(port, timeoutSeconds: 10), "ffmpeg never listened: \(ffmpeg.errorOutput)")
        let livepush = try Self.stream(["rtmp://127.0.0.1:\(port)/app/key", nginx.url()], seconds: 8,
                                       extra: ["--audio", "tone", "--record", dir.file("local.mp4")])
        let log = try Self.finish(livepush, within: 50)
        #expect(ffmpeg.wait(timeoutSeconds: 15) == 0, "ffmpeg: \(ffmpeg.errorOutput.suffix(1000))")
        #expect(log.contains("record:"), "\(log.suffix(800))")
        #expect(!log.contains("connection lost"), "\(log.suffix(1500))")
        // Each output and the recording ask the shared encoder for an IDR as they start: a few extra keyframes.
        try Self.expectValidStream(dir.file("ffmpeg.flv"), minimumSeconds: 7.6, maximumSeconds: 8.4, forcedKeyFrames: true)
        try Self.expectAACAudio(dir.file("ffmpeg.flv"))
        try Self.expectValidStream(try #require(nginx.recordings.first), minimumSeconds: 7.6, maximumSeconds: 8.4, forcedKeyFrames: true)
    }

    /// nginx killed mid-stream and started again: livepush reconnects and resumes with a keyframe,
    /// and its frames (timestamps and codes) keep going forward.
    @Test func reconnectsAfterTheServerRestarts() throws {
        let nginx = try NginxRTMPServer()
        let livepush = try Self.stream([nginx.url()], seconds: 14)
        #expect(LocalPort.waitUntil(10) { !nginx.recordings.isEmpty })
        Thread.sleep(forTimeInterval: 4)
        nginx.kill()
        Thread.sleep(forTimeInterval: 1.5)
        try nginx.start()
        let log = try Self.finish(livepush, within: 50)
        #expect(log.contains("1 reconnects"), "\(log.suffix(800))")
        let files = nginx.recordings
        try #require(files.count == 2, "recordings: \(files)")
        try Self.expectValidStream(files[1], minimumSeconds: 3, maximumSeconds: 11, forcedKeyFrames: true)
        let before = try FLVInspection.frameNumbers(of: files[0], width: Self.width, height: Self.height).compactMap { $0 }
        let after = try FLVInspection.frameNumbers(of: files[1], width: Self.width, height: Self.height)
        #expect(FLVInspection.inOrder(before))
        #expect((before.last ?? 0) < (after.first.flatMap { $0 } ?? 0), "frames after the reconnect continue the stream")
    }
}

extension LocalPort {
    /// Polls `condition` every 50 ms for at most `seconds`.
    static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }
}
