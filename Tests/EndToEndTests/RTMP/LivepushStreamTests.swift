import Foundation
import Testing
import TestSupport

/// The real `livepush stream` binary publishing to real servers on 127.0.0.1, checked with ffprobe/ffmpeg.
@Suite(.serialized, .timeLimit(.minutes(3))) struct LivepushStreamTests {
    static let width = 640, height = 360, fps = 30.0, keyint = 2.0

    /// `livepush stream` to `urls`, bounded by `timeout`; `wrapper` (a command that runs the rest of
    /// its arguments) goes in front.
    static func stream(_ urls: [String], seconds: Int, source: String = "testpattern", bitrate: String = "1000k",
                       extra: [String] = [], wrapper: [String] = []) throws -> BackgroundProcess {
        let command = wrapper + ["timeout", "-k", "5", "\(seconds + 40)", try LivepushBinary.path(), "stream",
                                 "--source", source, "--size", "\(width)x\(height)", "--fps", "30",
                                 "--keyint", "2", "--bitrate", bitrate, "--duration", "\(seconds)s",
                                 "--reconnect-delay", "1s", "--reconnect-max-delay", "2s"] + extra + urls
        return try BackgroundProcess(command[0], Array(command.dropFirst()))
    }

    static func finish(_ process: BackgroundProcess, within seconds: Double) throws -> String {
        let status = process.wait(timeoutSeconds: seconds)
        #expect(status == 0, "livepush exited \(String(describing: status)): \(process.errorOutput.suffix(3000))")
        return process.output + process.errorOutput
    }

    /// livepush's own counts of a run, from its summary: checks anchor on them, not on seconds.
    struct RunCounts {
        /// Frames the camera numbered but never encoded (late at capture, or at the encoder): their
        /// codes are missing from every output.
        var droppedBeforeEncoder: Int
        /// The camera's ticks over the run: frames encoded and dropped before the encoder.
        var ticks: Int
        /// The output's frames sent and dropped; nil for a file that is not its own (a player's).
        var sent: Int?
        var dropped: Int?

        /// From `livepush stream`'s summary; the output is the one whose name contains `output`.
        init?(summary log: String, output: String? = nil) {
            guard let camera = log.firstMatch(of: /encoded (\d+) frames, dropped (\d+) at capture and (\d+) at/),
                  let encoded = Int(camera.1), let capture = Int(camera.2), let encoder = Int(camera.3) else { return nil }
            droppedBeforeEncoder = capture + encoder
            ticks = encoded + droppedBeforeEncoder
            guard let output else { return }
            let line = log.split(separator: "\n").first { $0.contains(output) && $0.contains(" frames, ") }
            guard let counts = line?.firstMatch(of: /: \w+, (\d+) frames, \d+ bytes, (\d+) dropped/) else { return nil }
            (sent, dropped) = (Int(counts.1), Int(counts.2))
        }

        init(droppedBeforeEncoder: Int, ticks: Int, sent: Int?, dropped: Int?) {
            (self.droppedBeforeEncoder, self.ticks, self.sent, self.dropped) = (droppedBeforeEncoder, ticks, sent, dropped)
        }
    }

    /// Checks a received FLV by its frame codes: the test pattern numbers every tick of its 30 fps
    /// clock (a frame dropped before the encoder leaves a gap), so the codes are media time and a
    /// loaded machine's drops are told apart from lost frames. With `run`, the checks count on
    /// livepush's summary; without it, they keep the older allowances in seconds.
    static func expectValidStream(_ path: String, minimumSeconds: Double, maximumSeconds: Double, forcedKeyFrames: Bool = false,
                                  run: RunCounts? = nil) throws {
        let flv = try FLVInspection(path: path)
        #expect(flv.codec == "h264")
        #expect(flv.width == width && flv.height == height)
        #expect(flv.packets.first?.isKey == true, "the stream starts with a keyframe")
        #expect(flv.timestampsIncrease)
        let numbers = try FLVInspection.frameNumbers(of: path, width: width, height: height)
        #expect(numbers.count == flv.packets.count)
        #expect(FLVInspection.inOrder(numbers), "frame codes: \(numbers.prefix(10))…")
        let codes = numbers.compactMap { $0 }.map(Int.init)
        guard codes.count == flv.packets.count, let first = codes.first, let last = codes.last else { return }
        let ticks = last - first + 1
        let missing = ticks - codes.count
        if let run {
            #expect(missing <= run.droppedBeforeEncoder + (run.dropped ?? 0),
                    "\(missing) frames missing, \(run.droppedBeforeEncoder) dropped before the encoder and \(run.dropped ?? 0) at the output")
            if let sent = run.sent { #expect(codes.count == sent, "\(codes.count) frames received of \(sent) sent") }
        } else {
            // Millisecond FLV timestamps make ffprobe's r_frame_rate guess unstable; count frames instead.
            #expect(abs(Double(codes.count) * fps / Double(ticks) - fps) < 0.6, "\(codes.count) frames in \(ticks) ticks (ffprobe guessed \(flv.frameRate))")
        }
        // Media time from the first frame to the last; a frame dropped at either end shortens it.
        let seconds = Double(ticks) / fps
        let endDrops = Double(run?.droppedBeforeEncoder ?? 0) / fps
        #expect(seconds + endDrops >= minimumSeconds && seconds <= maximumSeconds, "\(seconds) s (frames \(first)–\(last))")
        // The encoder counts a GOP in frames (keyint × fps): a frame dropped before it stretches the
        // interval in seconds, never in encoded frames. Between two keyframes the encoded frames number
        // at least the packets received and at most the ticks, less the drops before the encoder.
        let gop = Int(keyint * fps)
        let allowance = run?.droppedBeforeEncoder ?? 2
        let whole = run.map { $0.sent == codes.count && $0.dropped == 0 } ?? false
        let keys = flv.packets.indices.filter { flv.packets[$0].isKey }
        for (index, (from, to)) in zip(keys, keys.dropFirst()).enumerated() {
            let packets = to - from, span = codes[to] - codes[from]
            // The first interval may be short: a new connection asks the encoder for an IDR at once.
            // After a reconnect the requested IDR sits between the encoder's scheduled ones.
            let requested = forcedKeyFrames || index == 0
            let fits = requested ? packets <= gop && span - allowance <= gop
                : packets <= gop && gop <= span && span - allowance <= gop && (!whole || packets == gop)
            #expect(fits, "keyframe interval \(packets) frames, codes \(codes[from])–\(codes[to]) (\(gop) a GOP, \(allowance) dropped before the encoder)")
        }
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
        let run = try #require(RunCounts(summary: log, output: ":\(nginx.port)/"), "\(log.suffix(800))")
        try Self.expectValidStream(try #require(nginx.recordings.first), minimumSeconds: 9.5, maximumSeconds: 10.5, run: run)
        try Self.expectAACAudio(try #require(nginx.recordings.first))
        // The player joined late, at a keyframe: a shorter but equally valid stream.
        try Self.expectValidStream(player.file("played.flv"), minimumSeconds: 5, maximumSeconds: 10.5, run: RunCounts(summary: log))
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
        // Required apart from the call: passed straight to the optional `run:`, #require would check nothing.
        let ffmpegRun = try #require(RunCounts(summary: log, output: ":\(port)/"), "\(log.suffix(800))")
        let nginxRun = try #require(RunCounts(summary: log, output: ":\(nginx.port)/"), "\(log.suffix(800))")
        // Each output and the recording ask the shared encoder for an IDR as they start: a few extra keyframes.
        try Self.expectValidStream(dir.file("ffmpeg.flv"), minimumSeconds: 7.6, maximumSeconds: 8.4, forcedKeyFrames: true, run: ffmpegRun)
        try Self.expectAACAudio(dir.file("ffmpeg.flv"))
        try Self.expectValidStream(try #require(nginx.recordings.first), minimumSeconds: 7.6, maximumSeconds: 8.4, forcedKeyFrames: true,
                                   run: nginxRun)
    }

    /// nginx killed mid-stream and started again: livepush reconnects and resumes with a keyframe,
    /// and its frames (timestamps and codes) keep going forward.
    @Test func reconnectsAfterTheServerRestarts() throws {
        let nginx = try NginxRTMPServer()
        // Stopped with SIGINT once the second publish holds its frames; the duration only bounds a hang.
        let livepush = try Self.stream([nginx.url()], seconds: 90)
        let gop = Int(Self.keyint * Self.fps)
        #expect(Self.waitForPackets(atLeast: gop, timeoutSeconds: 30) { nginx.recordings.first }, "the first publish: \(livepush.errorOutput.suffix(800))")
        nginx.kill()
        // The server stays away until livepush has lost it.
        #expect(livepush.waitUntil(timeoutSeconds: 30) { livepush.errorOutput.contains("connection lost") }, "\(livepush.errorOutput.suffix(800))")
        try nginx.start()
        #expect(Self.waitForPackets(atLeast: 3 * Int(Self.fps), timeoutSeconds: 60) { nginx.recordings.dropFirst().first },
                "the second publish: \(livepush.errorOutput.suffix(800))")
        livepush.interrupt()
        let log = try Self.finish(livepush, within: 50)
        #expect(log.contains("1 reconnects"), "\(log.suffix(800))")
        let files = nginx.recordings
        try #require(files.count == 2, "recordings: \(files)")
        // At most the whole run: the camera's ticks, encoded or dropped.
        let run = try #require(RunCounts(summary: log), "\(log.suffix(800))")
        try Self.expectValidStream(files[1], minimumSeconds: 3, maximumSeconds: Double(run.ticks) / Self.fps, forcedKeyFrames: true, run: run)
        let before = try FLVInspection.frameNumbers(of: files[0], width: Self.width, height: Self.height).compactMap { $0 }
        let after = try FLVInspection.frameNumbers(of: files[1], width: Self.width, height: Self.height)
        #expect(FLVInspection.inOrder(before))
        #expect((before.last ?? 0) < (after.first.flatMap { $0 } ?? 0), "frames after the reconnect continue the stream")
    }

    /// Waits until the FLV `path` names (a server still writing it) holds `count` video packets:
    /// the event a test waits for instead of a sleep. False after `timeoutSeconds`, a hang bound only.
    static func waitForPackets(atLeast count: Int, timeoutSeconds: Double, in path: () -> String?) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            // A half-written last tag may not parse; the next look sees it whole.
            if let path = path(), let flv = try? FLVInspection(path: path), flv.packets.count >= count { return true }
            Thread.sleep(forTimeInterval: 0.25)
        } while Date() < deadline
        return false
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
