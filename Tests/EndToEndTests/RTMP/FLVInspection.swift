import Foundation
import MediaCore
import TestSupport

/// What ffprobe/ffmpeg (independent of livepush) see in a received FLV: video stream parameters,
/// packet timing and keyframes, and the frame codes burned into the test pattern.
struct FLVInspection {
    struct Packet {
        var dtsSeconds: Double
        var isKey: Bool
    }

    var codec: String
    var width: Int
    var height: Int
    var frameRate: String
    var packets: [Packet]

    init(path: String) throws {
        let probe = try FFmpegCLI.probe(path)
        let streams = probe["streams"] as? [[String: Any]] ?? []
        guard let video = streams.first(where: { $0["codec_type"] as? String == "video" }) else {
            throw TestSetupError( "no video stream in \(path)")
        }
        codec = video["codec_name"] as? String ?? ""
        width = video["width"] as? Int ?? 0
        height = video["height"] as? Int ?? 0
        frameRate = video["r_frame_rate"] as? String ?? ""
        let csv = try ExternalTool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts_time,flags",
                                                   "-of", "csv=p=0", path], timeoutSeconds: 60).output
        packets = csv.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let dts = Double(fields[0]) else { return nil }
            return Packet(dtsSeconds: dts, isKey: fields[1].hasPrefix("K"))
        }
    }

    /// First to last packet plus one frame interval.
    func durationSeconds(fps: Double) -> Double {
        guard let first = packets.first, let last = packets.last else { return 0 }
        return last.dtsSeconds - first.dtsSeconds + 1 / fps
    }

    var timestampsIncrease: Bool {
        zip(packets, packets.dropFirst()).allSatisfy { $0.dtsSeconds < $1.dtsSeconds }
    }

    /// Seconds between consecutive keyframes.
    var keyFrameIntervals: [Double] {
        let keys = packets.filter(\.isKey).map(\.dtsSeconds)
        return zip(keys, keys.dropFirst()).map { $1 - $0 }
    }

    /// The frame number burned into each decoded frame (nil where unreadable): ``FrameCodeReadBack``.
    static func frameNumbers(of path: String, width: Int, height: Int) throws -> [UInt32?] {
        try FrameCodeReadBack.frameNumbers(of: path, width: width, height: height)
    }

    /// Whether the numbers are all readable and strictly increasing: ``FrameCodeReadBack``.
    static func inOrder(_ numbers: [UInt32?]) -> Bool { FrameCodeReadBack.inOrder(numbers) }
}
