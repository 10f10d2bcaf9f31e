import Foundation
import MediaCore
import Testing
import TestSupport

/// The real `livepush stream` binary.
@Suite(.timeLimit(.minutes(2))) struct StreamCommandTests {
    /// kill -9 mid-recording leaves a file that plays up to its last fragment (≤ 1 s lost).
    @Test func recordingSurvivesSigkill() async throws {
        let dir = try TemporaryDirectory()
        let stream = try BackgroundProcess(try LivepushBinary.path(),
                                           ["stream", "--size", "640x360", "--keyint", "1", "--record", dir.file("live.mp4")])
        #expect(stream.waitUntil(timeoutSeconds: 20) {
            ((try? FileManager.default.attributesOfItem(atPath: dir.file("live.mp4"))[.size] as? Int) ?? 0) > 60_000
        })
        try await Task.sleep(for: .seconds(3))
        stream.kill(signal: SIGKILL)
        #expect(stream.wait(timeoutSeconds: 5) != nil)
        let codes = try RecordedFrameCodes.read(dir.file("live.mp4"), width: 640, height: 360)
        #expect(codes.count >= 60, "\(codes.count) frames survived kill -9")
        #expect(codes.allSatisfy { $0 != nil })
    }

    /// SIGTERM stops cleanly: the summary is printed and the file is finalized (has its duration).
    @Test func sigtermFinalizes() async throws {
        let dir = try TemporaryDirectory()
        let stream = try BackgroundProcess(try LivepushBinary.path(), ["stream", "--size", "320x240", "--record", dir.file("out.mp4")])
        #expect(stream.waitUntil(timeoutSeconds: 20) { stream.output.contains("livepush: streaming") })
        try await Task.sleep(for: .seconds(2))
        stream.kill(signal: SIGTERM)
        #expect(stream.wait(timeoutSeconds: 10) == 0)
        #expect(stream.output.contains("livepush: stopped"))
        let probe = try FFmpegCLI.probe(dir.file("out.mp4"))
        let duration = Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(duration > 1.5)
    }

    /// A file source without `?loop` ends the run at the file's end, as a player does, whether or not
    /// `--duration` is longer: the process exits by itself with every frame recorded. Before, it
    /// waited for Ctrl-C (or `--duration` plus 5 s); a run that does not end fails on the timeout.
    @Test func aFileSourceEndsTheRunAtItsEnd() throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.twoSecondClip(in: dir)
        for length in [[], ["--duration", "10m"]] {
            let out = dir.file("out\(length.count).mp4")
            let started = MonotonicClock.nowNanos()
            let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--source", "file:\(clip)", "--encoder", "libx264",
                                                                           "--record", out] + length, timeoutSeconds: 50)
            let seconds = Double(MonotonicClock.nowNanos() - started) / 1e9
            // Only recorded, the file runs ahead of its clock and waits for the encoder rather than
            // drop: every frame of it is encoded, whatever the machine's load, and is in the finished
            // recording; the run still lasts as long as the file.
            let summary = try #require(result.output.firstMatch(of: /livepush: stopped; encoded (\d+) frames, dropped (\d+) at capture and (\d+) at the encoder/),
                                       "\(length): \(result.output.suffix(400))")
            #expect(summary.1 == "60" && summary.2 == "0" && summary.3 == "0", "\(length): \(summary.0)")
            #expect(try FFmpegCLI.videoFrameCount(out) == 60, "\(length)")
            #expect(seconds >= 59.0 / 30, "\(length): the run took \(seconds) s for a 2 s file")
        }
    }

    /// `livepush run` (capture only) ends at a file's end too, every frame seen.
    @Test func runEndsAtAFilesEnd() throws {
        let dir = try TemporaryDirectory()
        let result = try ExternalTool.run(try LivepushBinary.path(), ["run", "--source", "file:\(try Self.twoSecondClip(in: dir))", "--json-events"],
                                          timeoutSeconds: 50)
        let statuses = result.output.split(separator: "\n").filter { $0.contains("\"event\":\"status\"") }
        #expect(result.output.contains("\"event\":\"stopped\""), "\(result.output.suffix(400))")
        #expect(statuses.last?.contains("\"frames\":60,") == true, "\(statuses.last ?? "no status")")
    }

    /// 2 s of raw YUYV 320x240 at 30 fps (60 frames), made by the ffmpeg CLI.
    static func twoSecondClip(in dir: TemporaryDirectory) throws -> String {
        let clip = dir.file("clip.mkv")
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-c:v", "rawvideo", "-pix_fmt", "yuyv422", clip])
        return clip
    }

    /// Off a terminal (systemd, a pipe) the status line is printed once every 10 s or on a change of
    /// an output's state, not four times a second: 4 s of a recording stream print it at start and at most
    /// once more, when the recording's state settles (at four a second it would be about 16 lines).
    @Test func statusOffATerminalIsQuiet() throws {
        let dir = try TemporaryDirectory()
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--size", "320x240", "--duration", "4s",
                                                                       "--record", dir.file("out.mp4")], timeoutSeconds: 60)
        let lines = result.output.split(separator: "\n").filter { $0.contains("uptime") }
        #expect((1...2).contains(lines.count), "status lines: \(lines)")
        #expect(result.output.contains("livepush: stopped"), "\(result.output.suffix(500))")
    }

    /// `livepush encoders` lists only encoders that opened here (libx264 always; no GPU encoders on this machine).
    @Test func encodersListsWhatOpens() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["encoders"], timeoutSeconds: 60)
        let names = result.output.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(names.contains("libx264"))
        #expect(!names.contains("h264_nvenc") && !names.contains("h264_v4l2m2m"), "listed an encoder that cannot open here: \(names)")
        #expect(result.errorOutput.isEmpty, "probing must not spill FFmpeg's errors: \(result.errorOutput.prefix(300))")
    }

    @Test func devicesListAudioInputs() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["devices", "--json"], timeoutSeconds: 30)
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        // ALSA always has its `null` PCM; a real microphone would be listed beside it.
        #expect((listing["audioInputs"] as? [String])?.contains("null") == true, "\(listing)")
    }

    @Test func badOptionsAreNamed() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--bitrate", "fast", "--record", "/tmp/x.mp4"], check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("invalid bitrate 'fast'"))
        let none = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--duration", "1s"], check: false)
        #expect(none.status != 0 && none.errorOutput.contains("nothing to stream to"))
    }
}
