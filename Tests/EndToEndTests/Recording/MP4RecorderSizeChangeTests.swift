import Codec
import Foundation
import MediaCore
import Recording
import Testing
import TestSupport

/// MP4RecorderTests' size change, read back by ffmpeg and played in Chromium.
@Suite(.timeLimit(.minutes(2))) struct MP4RecorderSizeChangeTests {
    static let width = 640, height = 360
    /// The sizes of `adapted.mp4` and its continuations in the size-change test.
    static let adaptedSizes = [[width, height], [width / 2, height / 2], [width, height]]
    static let aacFrameSeconds = 1024.0 / 48_000

    /// CPU-adaptation steps halve the picture mid-recording and later restore it (each time the encoder
    /// reopens with an IDR and new SPS/PPS in band). An `avc1` track must carry the parameter sets its
    /// samples use in its sample entry (ISO/IEC 14496-15), written once at the file's start, so the
    /// recording continues in a new file at each change — `adapted.mp4`, `adapted-001.mp4`,
    /// `adapted-002.mp4` — each one size throughout. No video or AAC frame is lost: the audio splits
    /// where the video does, whether it arrives 100 ms ahead of its video (as behind a video encoder's
    /// delay) or 100 ms behind it. ffmpeg decodes every frame in order; Chromium plays the files one
    /// after another by `src` and through Media Source Extensions at each file's own size.
    @Test(arguments: [100, -100]) func aSizeChangeContinuesTheRecordingInANewFile(audioLeadMilliseconds: Int) throws {
        let dir = try TemporaryDirectory()
        let format = AudioFormat(sampleRate: 48_000, channels: 1)
        let audioEncoder = try AudioEncoder(settings: AudioEncoderSettings(codec: .aac, format: format))
        let track = AudioTrack(codec: .aac, format: format, audioSpecificConfig: audioEncoder.audioSpecificConfig)
        let recorder = MP4Recorder(settings: RecordingSettings(path: dir.file("adapted.mp4")), audio: track)
        let video = SyntheticVideo(width: Self.width, height: Self.height, framesPerSecond: 30)
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: Self.width, height: Self.height, bitrateBitsPerSecond: 800_000,
                                                                      keyframeIntervalSeconds: 1, preset: "ultrafast"))
        let endNanos = video.captureTimeNanos(frameNumber: 90)
        var audioFrames: [EncodedAudioFrame] = []
        var chunks = 0
        func sendAudio(until nanos: Int64) throws {
            while video.startNanos + Int64(chunks) * 10_000_000 < nanos {
                let samples = (0..<480).map { Int16(8_000 * sin(Double(chunks * 480 + $0) * 2 * .pi * 440 / 48_000)) }
                let chunk = AudioChunk(format: format, samples: samples, captureTimeNanos: video.startNanos + Int64(chunks) * 10_000_000)
                chunks += 1
                try audioEncoder.encode(chunk) { audioFrames.append($0); recorder.onEncodedAudio($0) }
            }
        }
        var firstVideoNanos: Int64?
        func sendVideo(_ frame: EncodedVideoFrame) {
            firstVideoNanos = firstVideoNanos ?? frame.dtsNanos
            recorder.onEncodedFrame(frame)
        }
        for number in 0..<90 {
            if number == 30 { try encoder.adapt(width: Self.width / 2, height: Self.height / 2, framesPerSecond: 30) }
            if number == 60 { try encoder.adapt(width: Self.width, height: Self.height, framesPerSecond: 30) }
            try sendAudio(until: min(video.captureTimeNanos(frameNumber: number) + Int64(audioLeadMilliseconds) * 1_000_000, endNanos))
            guard let frame = try video.frame(number: number) else { continue }
            try encoder.encode(frame) { sendVideo($0) }
        }
        try encoder.flush { sendVideo($0) }
        try sendAudio(until: endNanos)
        try audioEncoder.flush { audioFrames.append($0); recorder.onEncodedAudio($0) }
        recorder.finish()

        let names = ["adapted.mp4", "adapted-001.mp4", "adapted-002.mp4"]
        let stats = recorder.statistics
        #expect(stats.files == names.map { dir.file($0) }, "a file per picture size")
        let origin = try #require(firstVideoNanos)
        let audioRecorded = audioFrames.filter { $0.ptsNanos >= origin }.count
        #expect(stats.framesWritten == 90 && stats.audioFramesWritten == audioRecorded && stats.lastError == nil, "\(stats)")
        var audioPackets = 0
        for (file, size) in zip(stats.files, Self.adaptedSizes) {
            audioPackets += try Self.expectOneSizeThroughout(file, size: size, videoSeconds: 1.0)
        }
        #expect(audioPackets == audioRecorded, "every AAC frame from the first video frame on is in one of the files")
        let codes = try stats.files.flatMap {
            try FrameCodeReadBack.codes(of: $0, width: Self.width, height: Self.height, filter: "scale=\(Self.width):\(Self.height)")
        }
        #expect(codes.map { $0?.frameNumber } == (0..<90).map { UInt32($0) })
        try Self.expectChromiumPlays(names, in: dir, sizes: Self.adaptedSizes, frames: 90)
    }

    /// Checks with ffprobe that `file`'s video track is `avc1` of `size` and so is every frame in it,
    /// and that its audio spans its video to within one AAC frame; returns the audio packet count.
    static func expectOneSizeThroughout(_ file: String, size: [Int], videoSeconds: Double) throws -> Int {
        let probe = try FFmpegCLI.probe(file, extra: ["-show_frames", "-count_frames"])
        let streams = probe["streams"] as? [[String: Any]] ?? []
        let videoStream = try #require(streams.first { $0["codec_type"] as? String == "video" }, "\(file) has no video")
        #expect(videoStream["codec_tag_string"] as? String == "avc1")
        #expect([videoStream["width"] as? Int ?? 0, videoStream["height"] as? Int ?? 0] == size, "\(file)'s track size")
        #expect(videoStream["nb_read_frames"] as? String == "\(Int(videoSeconds * 30))", "\(file)'s frames")
        let frames = (probe["frames"] as? [[String: Any]] ?? []).filter { $0["media_type"] as? String == "video" }
        let sizes = Set(frames.map { [$0["width"] as? Int ?? 0, $0["height"] as? Int ?? 0] })
        #expect(sizes == [size], "every frame of \(file) is its track's size")
        let audio = try FFmpegCLI.packetTimes(file)
        let first = try #require(audio.first, "\(file) has no audio"), last = try #require(audio.last)
        #expect(first >= 0 && first < aacFrameSeconds, "\(file)'s audio starts \(first) s after its video")
        #expect(abs(last + aacFrameSeconds - videoSeconds) < aacFrameSeconds, "\(file)'s audio ends at \(last + aacFrameSeconds) s, video \(videoSeconds) s")
        return audio.count
    }

    /// Plays `names` (files in `dir`) one after another in headless Chromium, by `src` and through
    /// MSE, and expects each played to the end at its own size, `frames` frames decoded in all.
    static func expectChromiumPlays(_ names: [String], in dir: TemporaryDirectory, sizes: [[Int]], frames: Int) throws {
        _ = try ExternalTool.require("chromium")
        _ = try ExternalTool.require("chromedriver")
        let run = try ExternalTool.run(try PythonPeers.python(), ["\(PythonPeers.scripts)/chromium_mp4.py", dir.path] + names,
                                       timeoutSeconds: 150, check: false)
        let result = try #require(PythonPeers.result(run.output), "the peer printed no JSON: \(run.output) \(run.errorOutput.suffix(2000))")
        #expect(result["ok"] as? Bool == true, "\(result)")
        for mode in ["src", "mse"] {
            let played = result[mode] as? [String: Any] ?? [:]
            #expect(played["ended"] as? Bool == true && played["error"] is NSNull, "\(mode): \(played)")
            #expect(played["sizes"] as? [[Int]] == sizes, "\(mode) showed \(played["sizes"] ?? "nothing")")
            #expect(played["framesDecoded"] as? Int == frames, "\(mode): \(played)")
        }
    }
}
