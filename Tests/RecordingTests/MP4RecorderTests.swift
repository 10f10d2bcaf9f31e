import Codec
import Foundation
import LibAV
import MediaCore
import Recording
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct MP4RecorderTests {
    static let width = 640, height = 360

    /// Encodes `count` synthetic frames (keyframe every `keyint` s) into the recorder.
    static func record(_ count: Int, keyint: Double, into recorder: MP4Recorder) throws {
        let video = SyntheticVideo(width: width, height: height, framesPerSecond: 30)
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: width, height: height, bitrateBitsPerSecond: 800_000,
                                                                      keyframeIntervalSeconds: keyint, preset: "ultrafast"))
        for number in 0..<count {
            guard let frame = try video.frame(number: number) else { continue }
            try encoder.encode(frame) { recorder.onEncodedFrame($0) }
        }
        try encoder.flush { recorder.onEncodedFrame($0) }
    }

    /// The frame codes of every decoded frame of a file (decoded by the ffmpeg CLI, not by livepush),
    /// read at 640x360 whatever the file's size.
    static func frameCodes(of path: String, in dir: TemporaryDirectory) throws -> [FrameCode?] {
        let raw = dir.file("decoded-\(UUID().uuidString).yuv")
        try FFmpegCLI.ffmpeg(["-i", path, "-an", "-fps_mode", "passthrough", "-vf", "scale=\(width):\(height)", "-pix_fmt", "yuv420p",
                              "-f", "rawvideo", raw])
        let bytes = try FFmpegCLI.bytes(of: raw)
        let frameSize = RawPicture.packedSize(format: .i420, width: width, height: height)
        return try stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize).map { offset in
            let buffer = try I420Buffer(width: width, height: height)
            try bytes[offset..<(offset + frameSize)].withUnsafeBytes {
                try buffer.convert(from: RawPicture(bytes: $0, format: .i420, width: width, height: height))
            }
            return FrameCode.read(from: buffer)
        }
    }

    static func waitUntilWritten(_ recorder: MP4Recorder, frames: Int) async throws {
        for _ in 0..<500 where recorder.statistics.framesWritten < frames { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func recordsEveryFrameInOrder() throws {
        let dir = try TemporaryDirectory()
        let recorder = MP4Recorder(settings: RecordingSettings(path: dir.file("out.mp4")))
        try Self.record(90, keyint: 1, into: recorder)
        recorder.finish()
        #expect(recorder.statistics.framesWritten == 90 && recorder.statistics.droppedFrames == 0)
        let probe = try FFmpegCLI.probe(dir.file("out.mp4"), extra: ["-count_frames"])
        let stream = try #require((probe["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == "h264")
        #expect(stream["width"] as? Int == Self.width && stream["height"] as? Int == Self.height)
        #expect(stream["nb_read_frames"] as? String == "90")
        let duration = Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(abs(duration - 3.0) < 0.15, "duration \(duration) s for 90 frames at 30 fps")
        let codes = try Self.frameCodes(of: dir.file("out.mp4"), in: dir)
        #expect(codes.map { $0?.frameNumber } == (0..<90).map { UInt32($0) })
    }

    /// Without a trailer (as after kill -9), the file still plays up to its last complete fragment.
    @Test func unfinishedFileIsPlayable() async throws {
        let dir = try TemporaryDirectory()
        let recorder = MP4Recorder(settings: RecordingSettings(path: dir.file("live.mp4")))
        try Self.record(150, keyint: 1, into: recorder)
        try await Self.waitUntilWritten(recorder, frames: 150)
        // Copy the file as a crash would leave it: no trailer written, writer still open.
        try FileManager.default.copyItem(atPath: dir.file("live.mp4"), toPath: dir.file("crashed.mp4"))
        recorder.finish()
        let codes = try Self.frameCodes(of: dir.file("crashed.mp4"), in: dir)
        #expect(codes.count >= 120, "only \(codes.count) of 150 frames survived; fragments are at most 1 s")
        #expect(codes.map { $0?.frameNumber } == (0..<codes.count).map { UInt32($0) })
    }

    @Test func segmentsStartAtKeyframesAndLoseNothing() throws {
        let dir = try TemporaryDirectory()
        let recorder = MP4Recorder(settings: RecordingSettings(path: dir.file("seg.mp4"), segmentSeconds: 2))
        try Self.record(300, keyint: 1, into: recorder)
        recorder.finish()
        let files = recorder.statistics.files
        #expect(files == (0..<5).map { dir.file(String(format: "seg-%03d.mp4", $0)) })
        var all: [UInt32?] = []
        for file in files {
            let codes = try Self.frameCodes(of: file, in: dir)
            #expect(codes.count == 60, "\(file) has \(codes.count) frames, expected 2 s")
            all += codes.map { $0?.frameNumber }
        }
        #expect(all == (0..<300).map { UInt32($0) })
    }

    @Test func unwritableDirectoryIsAClearError() throws {
        let recorder = MP4Recorder(settings: RecordingSettings(path: "/nonexistent-dir/out.mp4"))
        try Self.record(5, keyint: 1, into: recorder)
        recorder.finish()
        guard case let .cannotCreate(path, _) = recorder.statistics.lastError else {
            Issue.record("expected cannotCreate, got \(String(describing: recorder.statistics.lastError))")
            return
        }
        #expect(path == "/nonexistent-dir/out.mp4")
    }
}
