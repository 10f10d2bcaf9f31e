import Foundation
import Testing
import TestSupport

/// `livepush stream` with three renditions of one test-pattern capture: two RTMP publishes to
/// nginx-rtmp and a recording, each taking its own rendition, read back with ffprobe and the frame codes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct LivepushRenditionTests {
    @Test func eachDestinationGetsItsRenditionsSize() throws {
        let nginx = try NginxRTMPServer()
        let dir = try TemporaryDirectory()
        let livepush = try BackgroundProcess("timeout", ["-k", "5", "60", try LivepushBinary.path(), "stream",
                                                         "--size", "1280x720", "--fps", "30", "--keyint", "1", "--preset", "ultrafast", "--duration", "6s",
                                                         "--rendition", "hd=1280x720@30:1M", "--rendition", "sd=640x360@30:400k",
                                                         "--rendition", "low=320x180@15:150k",
                                                         "--record", "low=\(dir.file("low.mp4"))", nginx.url(key: "hd"), "sd=\(nginx.url(key: "sd"))"])
        let status = livepush.wait(timeoutSeconds: 60)
        #expect(status == 0, "livepush exited \(String(describing: status)): \(livepush.errorOutput.suffix(3000))")
        let summary = try #require(RenditionSummary(livepush.output), "the summary has a line per rendition: \(livepush.output.suffix(1500))")
        #expect(summary.lines.map(\.name) == ["hd", "sd", "low"] && summary.lines.map(\.size) == ["1280x720", "640x360", "320x180"], "\(summary)")
        #expect(summary.total == summary.lines.reduce(0) { $0 + $1.encoded }, "the first line sums the renditions: \(summary)")
        for line in summary.lines {
            #expect(line.encoded >= 45, "\(line)")
            #expect((line.thinned > 0) == (line.name == "low"), "only the 15 fps rendition is thinned: \(line)")
            if line.name == "hd" {
                #expect(line.scaled == 0 && line.uncopied == line.encoded, "the capture-size rendition encodes the captured buffers: \(line)")
            } else {
                #expect(line.uncopied == 0 && line.scaled == line.encoded && line.takenScaled == 0, "its own size, scaled once per frame: \(line)")
            }
        }
        nginx.waitForRecordingsToSettle()
        let recordings = nginx.recordings
        let hd = try #require(recordings.first { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("hd") }, "\(recordings)")
        let sd = try #require(recordings.first { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("sd") }, "\(recordings)")
        var frames: [String: Int] = [:]
        for (name, path, width, height) in [("hd", hd, 1280, 720), ("sd", sd, 640, 360), ("low", dir.file("low.mp4"), 320, 180)] {
            let streams = try #require(try FFmpegCLI.probe(path)["streams"] as? [[String: Any]])
            let video = try #require(streams.first { $0["codec_type"] as? String == "video" }, "\(name): \(streams)")
            #expect(video["codec_name"] as? String == "h264" && video["width"] as? Int == width && video["height"] as? Int == height, "\(name): \(video)")
            let numbers = try FrameCodeReadBack.frameNumbers(of: path, width: width, height: height)
            #expect(numbers.count >= 45, "\(name): \(numbers.count) frames decoded")
            #expect(FrameCodeReadBack.inOrder(numbers), "\(name): frame codes \(numbers.prefix(12))…")
            frames[name] = numbers.count
        }
        #expect((frames["low"] ?? 0) < (frames["sd"] ?? 0), "the 15 fps rendition has fewer frames than the 30 fps ones: \(frames)")
        #expect(frames["low"] ?? 0 <= summary.lines[2].encoded, "the recording holds at most what its rendition encoded: \(frames), \(summary)")
    }

    /// `--rtmp-tracks` to a server that does not announce multitrack in its `connect` result (nginx-rtmp
    /// never does, and drops enhanced tags without a word): it gets the top rendition alone, as an
    /// ordinary stream, and the log says why. ffprobe reads back one video stream at the top size.
    @Test func aServerWithoutMultitrackGetsTheTopRenditionAlone() throws {
        let nginx = try NginxRTMPServer()
        let livepush = try BackgroundProcess("timeout", ["-k", "5", "60", try LivepushBinary.path(), "stream",
                                                         "--size", "640x360", "--fps", "30", "--keyint", "1", "--preset", "ultrafast", "--duration", "4s",
                                                         "--rendition", "hd=640x360@30:800k", "--rendition", "sd=320x180@30:300k",
                                                         "--rendition", "ld=160x90@30:100k", "--rtmp-tracks", "hd,sd,ld", nginx.url(key: "tracks")])
        let status = livepush.wait(timeoutSeconds: 60)
        #expect(status == 0, "livepush exited \(String(describing: status)): \(livepush.errorOutput.suffix(3000))")
        #expect(livepush.errorOutput.contains("server did not announce multitrack (capsEx); sending the top rendition only"),
                "\(livepush.errorOutput.suffix(3000))")
        nginx.waitForRecordingsToSettle()
        let path = try #require(nginx.recordings.first { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix("tracks") }, "\(nginx.recordings)")
        let streams = try #require(try FFmpegCLI.probe(path)["streams"] as? [[String: Any]])
        let videos = streams.filter { $0["codec_type"] as? String == "video" }
        #expect(videos.count == 1, "one video stream: \(streams)")
        let video = try #require(videos.first)
        #expect(video["codec_name"] as? String == "h264" && video["width"] as? Int == 640 && video["height"] as? Int == 360, "\(video)")
        let numbers = try FrameCodeReadBack.frameNumbers(of: path, width: 640, height: 360)
        #expect(numbers.count >= 60 && !numbers.contains(nil), "\(numbers.count) frames decoded, codes \(numbers.prefix(12))…")
        #expect(FrameCodeReadBack.inOrder(numbers), "frame codes \(numbers.prefix(12))…")
    }
}

/// The counts in `livepush stream`'s end summary for a camera with several renditions.
private struct RenditionSummary: CustomStringConvertible {
    struct Line {
        var name: String, size: String
        var encoded: Int, dropped: Int, thinned: Int, scaled: Int, takenScaled: Int, uncopied: Int
    }

    var total: Int
    var lines: [Line]

    /// nil when the first line or any rendition line is missing its counts.
    init?(_ output: String) {
        let first = /livepush: stopped; (\d+) renditions encoded (\d+) frames together/
        let each = /rendition (\S+) (\d+x\d+): (\d+) frames encoded, (\d+) dropped at its encoder, (\d+) thinned, (\d+) scaled, (\d+) taken scaled from a sibling, (\d+) uncopied/
        guard let top = output.firstMatch(of: first), let total = Int(top.2) else { return nil }
        self.total = total
        lines = output.matches(of: each).compactMap { match in
            guard let encoded = Int(match.3), let dropped = Int(match.4), let thinned = Int(match.5), let scaled = Int(match.6),
                  let taken = Int(match.7), let uncopied = Int(match.8) else { return nil }
            return Line(name: String(match.1), size: String(match.2), encoded: encoded, dropped: dropped, thinned: thinned,
                        scaled: scaled, takenScaled: taken, uncopied: uncopied)
        }
        guard lines.count == Int(top.1) else { return nil }
    }

    var description: String {
        "total \(total); " + lines.map { "\($0.name) \($0.size) encoded \($0.encoded) dropped \($0.dropped) thinned \($0.thinned) "
            + "scaled \($0.scaled)/\($0.takenScaled) uncopied \($0.uncopied)" }.joined(separator: "; ")
    }
}
