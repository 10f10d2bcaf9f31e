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
        for line in ["rendition hd 1280x720:", "rendition sd 640x360:", "rendition low 320x180:"] {
            #expect(livepush.output.contains(line), "the summary has \(line): \(livepush.output.suffix(1500))")
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
    }
}
