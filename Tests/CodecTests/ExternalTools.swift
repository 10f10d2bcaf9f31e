import Foundation
import TestSupport
@testable import Codec

/// Runs the ffmpeg/ffprobe CLIs so helpers can be checked against FFmpeg's own reading of a stream.
enum ExternalTools {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a tool, bounded in time (TestSupport's runner); throws with stderr when it fails.
    static func run(_ tool: String, _ arguments: [String]) throws {
        try ExternalTool.run(tool, arguments, timeoutSeconds: 120)
    }

    /// The first stream of `ffprobe -show_streams -of json`.
    static func probeStream(_ path: String) throws -> [String: Any] {
        guard let first = (try FFmpegCLI.probe(path)["streams"] as? [[String: Any]])?.first else {
            throw Failure(description: "ffprobe found no stream in \(path)")
        }
        return first
    }

    /// The body of the first box of this four-character type found in an MP4 file (avcC, hvcC).
    static func mp4BoxBody(_ type: String, in path: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let tag = Array(type.utf8)
        for index in 4..<(bytes.count - 4) where Array(bytes[index..<(index + 4)]) == tag {
            let size = bytes[(index - 4)..<index].reduce(0) { $0 << 8 | Int($1) }
            return Array(bytes[(index + 4)..<(index - 4 + size)])
        }
        throw Failure(description: "no \(type) box in \(path)")
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("livepush-codec-\(getpid())-\(name)").path
    }

    /// Encodes `count` synthetic frames with our encoder and returns the access units.
    static func encode(_ settings: VideoEncoderSettings, count: Int) throws -> [EncodedVideoFrame] {
        let encoder = try VideoEncoder(settings: settings)
        let video = SyntheticVideo(width: settings.width, height: settings.height, framesPerSecond: settings.framesPerSecond)
        var out = [EncodedVideoFrame]()
        for number in 0..<count {
            guard let frame = try video.frame(number: number) else { throw Failure(description: "pool exhausted") }
            try encoder.encode(frame) { out.append($0) }
        }
        try encoder.flush { out.append($0) }
        return out
    }

    /// Writes access units as a raw Annex-B elementary stream (what `ffprobe x.h264` reads).
    static func writeElementaryStream(_ frames: [EncodedVideoFrame], to path: String) throws {
        try Data(frames.flatMap(\.data)).write(to: URL(fileURLWithPath: path))
    }
}
