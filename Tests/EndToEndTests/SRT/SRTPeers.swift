import Foundation
import Testing
import TestSupport

/// The independent SRT peers the tests run on 127.0.0.1, each under `timeout` so none outlives a test.
enum SRTPeers {
    static let width = 640, height = 360, fps = 30

    /// A UDP port the kernel just handed out (bound, then released).
    static func freePort() throws -> Int { try LoopbackUDPSocket().port }

    /// `ffmpeg -i srt://…?mode=listener -c copy FILE`: Debian's ffmpeg (libsrt) as the receiver,
    /// returned once it listens (a caller dialling earlier would be refused).
    static func ffmpegListener(port: Int, passphrase: String? = nil, writingTo path: String, seconds: Int = 60) throws -> BackgroundProcess {
        let query = "mode=listener" + (passphrase.map { "&passphrase=\($0)" } ?? "")
        let receiver = try BackgroundProcess("timeout", ["-k", "2", "\(seconds)", try ExternalTool.require("ffmpeg"), "-nostdin", "-v", "error"]
                                             + receiving(from: "srt://127.0.0.1:\(port)?\(query)", to: path))
        guard UDPPortWait.waitUntilBound([port], by: receiver) else {
            throw TestSetupError("ffmpeg never listened on UDP port \(port): \(receiver.errorOutput.suffix(800))")
        }
        return receiver
    }

    /// ffmpeg's arguments from `url` into the MPEG-TS file `path`, written as it arrives: half a
    /// second of media (not 5 s) finds both streams, and every packet is flushed, so a test waiting
    /// for frames in the file sees them at once.
    static func receiving(from url: String, to path: String) -> [String] {
        ["-analyzeduration", "500000", "-i", url, "-c", "copy", "-flush_packets", "1", "-f", "mpegts", "-y", path]
    }

    /// Waits until `path`, a file a receiver is still writing, holds at least `count` frames whose
    /// code reads back: the event a test waits for instead of guessing how long the peers take.
    /// False after `timeoutSeconds` (a hang bound only).
    static func waitForFrames(in path: String, atLeast count: Int, timeoutSeconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            // Decoded only once it holds something (cheap polling); a half-written last packet that
            // does not decode yet is whole at the next look.
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if size > 0, let numbers = try? frameNumbers(of: path), numbers.compactMap({ $0 }).count >= count { return true }
            Thread.sleep(forTimeInterval: 0.5)
        } while Date() < deadline
        return false
    }

    /// `livepush stream` of the test pattern (frame codes burned in) with a tone, to `urls`.
    static func stream(_ urls: [String], seconds: Int, extra: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess("timeout", ["-k", "5", "\(seconds + 40)", try LivepushBinary.path(), "stream",
                                          "--source", "testpattern", "--size", "\(width)x\(height)", "--fps", "\(fps)",
                                          "--keyint", "2", "--bitrate", "1000k", "--audio", "tone", "--duration", "\(seconds)s",
                                          "--reconnect-delay", "1s", "--reconnect-max-delay", "2s"] + extra + urls)
    }

    /// livepush streams `seconds` through a relay on `relayPort` to an ffmpeg listener on
    /// `receiverPort` writing `path`; both must end cleanly. Returns livepush's log.
    static func streamThroughRelay(_ relayPort: Int, to receiverPort: Int, writingTo path: String, latencyMilliseconds: Int,
                                   seconds: Int, extra: [String] = []) throws -> String {
        let receiver = try ffmpegListener(port: receiverPort, writingTo: path)
        let livepush = try stream(["srt://127.0.0.1:\(relayPort)?latency=\(latencyMilliseconds)"], seconds: seconds, extra: extra)
        let status = livepush.wait(timeoutSeconds: Double(seconds) + 37)
        let log = livepush.output + livepush.errorOutput
        #expect(status == 0, "\(log.suffix(2000))")
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        return log
    }

    /// Codec names of the file's streams by type, as ffprobe reads them.
    static func codecs(of path: String) throws -> [String: String] {
        let streams = (try FFmpegCLI.probe(path)["streams"] as? [[String: Any]]) ?? []
        return Dictionary(streams.compactMap { stream in
            (stream["codec_type"] as? String).map { ($0, stream["codec_name"] as? String ?? "?") }
        }, uniquingKeysWith: { first, _ in first })
    }

    /// The frame numbers the test pattern burned into each decoded picture of `path`.
    static func frameNumbers(of path: String) throws -> [UInt32?] {
        try FrameCodeReadBack.frameNumbers(of: path, width: width, height: height)
    }
}
