import Capture
import Codec
import Foundation
import MediaCore
import Pipeline
import RTMP
import RTMPClient
import Testing
import TestSupport

/// Three renditions of one test-pattern capture as the tracks of one live enhanced-RTMP v2 connection
/// (``RTMPOutput`` with ``RTMPOutputConfiguration/tracks``, fed by the rendition pipeline as the engine
/// runs it), read back by a receiver that is not livepush: FFmpeg 8 (PyAV's bundled libraries) listening
/// as an RTMP server. FFmpeg's listener never announces multitrack in its `connect` result, so the output
/// runs with the test-only ``RTMPMultitrackPolicy/always``; a server that says nothing gets the top
/// rendition alone (`LivepushRenditionTests`, with nginx-rtmp).
@Suite(.serialized, .timeLimit(.minutes(2))) struct MultitrackRTMPReadBackTests {
    static let sizes = [(name: "hd", width: 480, height: 270, bitrate: 600_000), (name: "sd", width: 320, height: 180, bitrate: 300_000),
                        (name: "ld", width: 160, height: 90, bitrate: 250_000)]

    /// Each track is its own video stream at its size; every frame of every track decodes with its frame
    /// code, in order; every track's keyframes fall on the same times (one origin, a clock per track),
    /// placed by capture time, so a frame one rendition's encoder queue drops cannot shift them.
    /// H.264, HEVC and AV1 tracks; `codeShare` as in ``EnhancedRTMPReadBackTests`` (SVT-AV1 now and then
    /// keeps a stale block in the code band).
    @Test(arguments: [("libx264", "h264", 1.0), ("libx265", "hevc", 1.0), ("libsvtav1", "libdav1d", 0.9)])
    func everyTrackArrivesAsItsOwnStream(encoder encoderName: String, decoder: String, codeShare: Double) async throws {
        let port = try LocalPort.free()
        let url = "rtmp://127.0.0.1:\(port)/app/key"
        let receiver = try BackgroundProcess("timeout", ["-k", "5", "60", try PythonPeers.python(),
                                                         "\(PythonPeers.scripts)/pyav_flv_tracks.py", "--listen", url, "--wait", "30"])
        // FFmpeg's RTMP server takes one connection: look for its listening socket, never connect to it.
        try #require(LocalPort.waitUntilListeningSocket(port, timeoutSeconds: 30), "PyAV never listened: \(receiver.errorOutput)")

        let renditions = Self.sizes.map { size in
            StreamPipeline.Rendition(
                description: RenditionDescription(name: size.name, width: size.width, height: size.height, framesPerSecond: 30,
                                                  bitrateBitsPerSecond: size.bitrate),
                settings: VideoEncoderSettings(encoderName: encoderName, width: size.width, height: size.height, framesPerSecond: 30, bitrateBitsPerSecond: size.bitrate,
                                               keyframeIntervalSeconds: 1, preset: "ultrafast"))
        }
        var configuration = RTMPOutputConfiguration(url: try RTMPURL(url), stream: RTMPStreamDescription(encoder: renditions[0].settings))
        configuration.tracks = renditions.indices.map { RTMPTrack(rendition: $0, stream: RTMPStreamDescription(encoder: renditions[$0].settings)) }
        configuration.multitrack = .always
        let output = RTMPOutput(configuration: configuration)
        let capturer = TestPatternCapturer(source: TestPatternSource(), config: CaptureConfig(size: VideoSize(width: 480, height: 270), framesPerSecond: 30),
                                           poolCapacity: StreamPipeline.capturePoolCapacity(renditions: renditions.count))
        let pipeline = try StreamPipeline(capturer: capturer, renditions: renditions, outputs: [(output, 0)])
        _ = try await pipeline.start()
        try await Task.sleep(for: .seconds(3))
        await pipeline.stop()
        let encodes = pipeline.status.renditions.map(\.encoder)
        let sent = output.status.framesSent
        #expect(output.status.framesDropped == 0, "\(output.status)")

        #expect(receiver.wait(timeoutSeconds: 30) == 0, "receiver: \(receiver.errorOutput.suffix(2000))")
        let result = try #require(PythonPeers.result(receiver.output), "the receiver printed no JSON: \(receiver.errorOutput.suffix(2000))")
        #expect(result["error"] is NSNull, "\(result)")
        #expect((result["errorLogs"] as? [String])?.isEmpty == true, "\(result)")
        let tracks = try #require(result["tracks"] as? [[String: Any]], "\(result)")
        try #require(tracks.count == Self.sizes.count, "one video stream per track: \(result)")
        var decoded = 0
        for (index, track) in tracks.enumerated() {
            let size = Self.sizes[index]
            let frames = track["frames"] as? Int ?? -1
            decoded += frames
            print("multitrack live \(encoderName) track \(index) (\(size.name)): \(track["width"] ?? 0)x\(track["height"] ?? 0), \(frames) frames "
                  + "(\(encodes[index].dropped) dropped by its encoder queue), "
                  + "\((track["bytes"] as? Int ?? 0) * 8 / max(1, track["lastMillis"] as? Int ?? 0)) kbit/s, keyframes at \(track["keyMillis"] ?? [])")
            #expect(track["track"] as? Int == index, "\(track)")
            #expect(track["codec"] as? String == decoder, "\(track)")
            #expect(track["width"] as? Int == size.width && track["height"] as? Int == size.height, "\(track)")
            #expect(frames >= 60 && track["packets"] as? Int == frames, "every packet decoded to a frame: \(track)")
            #expect(track["decodeErrors"] as? Int == 0 && track["corruptFrames"] as? Int == 0, "\(track)")
            let codes = track["codes"] as? Int ?? 0
            #expect(codes > 0 && Double(codes) >= codeShare * Double(frames) && track["codesIncrease"] as? Bool == true,
                    "every frame's code, in order: \(track)")
            let keys = track["keyMillis"] as? [Int] ?? []
            #expect(keys.count >= 2 && keys == tracks[0]["keyMillis"] as? [Int], "keyframes at the same times as track 0: \(track)")
        }
        #expect(decoded == sent, "livepush sent \(sent) frames, FFmpeg decoded \(decoded)")
    }
}
