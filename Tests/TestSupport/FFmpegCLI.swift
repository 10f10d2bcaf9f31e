import Foundation
import Harness

/// The ffmpeg/ffprobe command-line tools as independent references in tests.
public enum FFmpegCLI {
    /// Runs `ffmpeg -v error -y ARGS`.
    public static func ffmpeg(_ arguments: [String], timeoutSeconds: Double = 120) throws {
        try ExternalTool.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y"] + arguments, timeoutSeconds: timeoutSeconds)
    }

    /// Decoded JSON of `ffprobe -show_streams -show_format` (plus any extra arguments).
    public static func probe(_ path: String, extra: [String] = []) throws -> [String: Any] {
        let result = try ExternalTool.run("ffprobe", ["-v", "error", "-of", "json", "-show_streams", "-show_format"] + extra + [path], timeoutSeconds: 60)
        guard let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
            throw ExternalTool.Failure(description: "ffprobe printed no JSON for \(path)")
        }
        return json
    }

    /// Presentation times (seconds) of the packets of one stream of `path` (`a:0`: the first audio), in file order.
    public static func packetTimes(_ path: String, stream: String = "a:0") throws -> [Double] {
        let csv = try ExternalTool.run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time",
                                                   "-of", "csv=p=0", path], timeoutSeconds: 60).output
        return csv.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
    }

    /// How many frames ffprobe decodes from the first video stream of `path`.
    public static func videoFrameCount(_ path: String) throws -> Int {
        let json = try probe(path, extra: ["-count_frames", "-select_streams", "v:0"])
        let stream = (json["streams"] as? [[String: Any]])?.first
        return Int(stream?["nb_read_frames"] as? String ?? "") ?? 0
    }

    /// Each decoded frame of the first video stream of `path`, in order: its size and the bytes of
    /// the packet it came from (what a receiver got, frame by frame).
    public static func videoFrames(_ path: String) throws -> [(width: Int, height: Int, packetBytes: Int)] {
        let json = try probe(path, extra: ["-select_streams", "v:0", "-show_entries", "frame=width,height,pkt_size"])
        return (json["frames"] as? [[String: Any]] ?? []).map { frame in
            (frame["width"] as? Int ?? 0, frame["height"] as? Int ?? 0, Int(frame["pkt_size"] as? String ?? "") ?? 0)
        }
    }

    /// The first decoded picture of `path` as I420 bytes (Y, then U, then V), decoded by ffmpeg.
    public static func firstFrameI420(of path: String) throws -> [UInt8] {
        let raw = path + ".first.yuv"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try ffmpeg(["-i", path, "-frames:v", "1", "-pix_fmt", "yuv420p", "-f", "rawvideo", raw])
        return try bytes(of: raw)
    }

    /// Reads a whole file as bytes.
    public static func bytes(of path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
}
