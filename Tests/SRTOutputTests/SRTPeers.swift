import Foundation
import TestSupport

/// The independent SRT peers the tests run on 127.0.0.1, each under `timeout` so none outlives a test.
enum SRTPeers {
    static let width = 640, height = 360, fps = 30

    /// A UDP port the kernel just handed out (bound, then released).
    static func freePort() throws -> Int { try LoopbackUDPSocket().port }

    /// `ffmpeg -i srt://…?mode=listener -c copy FILE`: Debian's ffmpeg (libsrt) as the receiver.
    static func ffmpegListener(port: Int, passphrase: String? = nil, writingTo path: String, seconds: Int = 60) throws -> BackgroundProcess {
        let query = "mode=listener" + (passphrase.map { "&passphrase=\($0)" } ?? "")
        return try BackgroundProcess("timeout", ["-k", "2", "\(seconds)", try ExternalTool.require("ffmpeg"), "-nostdin", "-v", "error",
                                                 "-i", "srt://127.0.0.1:\(port)?\(query)", "-c", "copy", "-f", "mpegts", "-y", path])
    }

    /// `livepush stream` of the test pattern (frame codes burned in) with a tone, to `urls`.
    static func stream(_ urls: [String], seconds: Int, extra: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess("timeout", ["-k", "5", "\(seconds + 40)", try LivepushBinary.path(), "stream",
                                          "--source", "testpattern", "--size", "\(width)x\(height)", "--fps", "\(fps)",
                                          "--keyint", "2", "--bitrate", "1000k", "--audio", "tone", "--duration", "\(seconds)s",
                                          "--reconnect-delay", "1s", "--reconnect-max-delay", "2s"] + extra + urls)
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
