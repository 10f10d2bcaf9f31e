import Codec
import Foundation
import MediaCore
import NIOCore
import RTMP
import RTMPClient
import Testing
import TestSupport

/// Enhanced-RTMP v2 multitrack video as livepush writes it (``FLVStreamPacketizer`` with a track id:
/// Multitrack/OneTrack tags), read back by a reader that is not livepush: FFmpeg 8's FLV demuxer (PyAV's
/// bundled libraries). Two renditions of one synthetic camera (320x180 and 160x90, one keyint; H.264, HEVC, AV1), each
/// its own encoder as the pipeline runs them, go as tracks 0 and 1 of one FLV stream: FFmpeg must show
/// one video stream per track at its size, decode every frame of each, frame codes in order, and the
/// keyframes of both tracks must fall on the same capture times (a server switches viewers there).
@Suite(.timeLimit(.minutes(2))) struct MultitrackFLVReadBackTests {
    static let sizes = [(width: 320, height: 180), (width: 160, height: 90)]
    static let frames = 75

    /// `codeShare` as in ``EnhancedRTMPReadBackTests``: SVT-AV1 now and then keeps a stale block in the code band.
    @Test(arguments: [("libx264", "h264", 1.0), ("libx265", "hevc", 1.0), ("libsvtav1", "libdav1d", 0.9)])
    func everyTrackDecodesInFFmpeg8(encoder encoderName: String, decoder: String, codeShare: Double) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("multitrack.flv")
        let (bytes, sent, keyMillis, keyCaptureNanos) = try Self.multitrackFLV(encoderName: encoderName)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // the renditions share keyint and start together: keyframes on the same capture times in every track
        #expect(keyCaptureNanos[0].count >= 2 && keyCaptureNanos.allSatisfy { $0 == keyCaptureNanos[0] }, "keyframes per track: \(keyCaptureNanos)")

        let python = try PythonPeers.python()
        let run = try ExternalTool.run(python, ["\(PythonPeers.scripts)/pyav_flv_tracks.py", path], timeoutSeconds: 60)
        let result = try #require(PythonPeers.result(run.output), "no JSON: \(run.errorOutput.suffix(2000))")
        #expect(result["error"] is NSNull, "\(result)")
        #expect((result["errorLogs"] as? [String])?.isEmpty == true, "\(result)")
        let tracks = try #require(result["tracks"] as? [[String: Any]], "\(result)")
        try #require(tracks.count == Self.sizes.count, "one video stream per track: \(result)")
        for (index, track) in tracks.enumerated() {
            let size = Self.sizes[index]
            let packets = track["packets"] as? Int ?? -1
            let lastMillis = track["lastMillis"] as? Int ?? 0
            print("multitrack \(encoderName) track \(index): \(size.width)x\(size.height), \(packets) frames, "
                  + "\((track["bytes"] as? Int ?? 0) * 8 / max(1, lastMillis)) kbit/s")
            #expect(track["track"] as? Int == index, "\(track)")
            #expect(track["codec"] as? String == decoder, "\(track)")
            #expect(track["width"] as? Int == size.width && track["height"] as? Int == size.height, "\(track)")
            #expect(packets == sent[index] && track["frames"] as? Int == sent[index], "sent \(sent[index]): \(track)")
            #expect(track["decodeErrors"] as? Int == 0 && track["corruptFrames"] as? Int == 0, "\(track)")
            #expect(track["keyMillis"] as? [Int] == keyMillis[index].map(Int.init), "\(track)")
            let codes = track["codes"] as? Int ?? 0
            #expect(codes > 0 && Double(codes) >= codeShare * Double(sent[index]) && track["codesIncrease"] as? Bool == true, "\(track)")
        }
    }

    /// An FLV file of the synthetic camera at both sizes, rendition `i` as track `i`; the frames sent per
    /// track, and the FLV timestamps and capture times of each track's keyframes. Each track has its own
    /// clock: one clock for all would push every track but the first a millisecond later (video timestamps
    /// strictly increase per clock), while tags of different tracks may share a time.
    static func multitrackFLV(encoderName: String) throws -> (bytes: [UInt8], sent: [Int], keyMillis: [[UInt32]], keyCaptureNanos: [[Int64]]) {
        let videos = sizes.map { SyntheticVideo(width: $0.width, height: $0.height, framesPerSecond: 30) }
        let encoders = try sizes.map {
            try VideoEncoder(settings: VideoEncoderSettings(encoderName: encoderName, width: $0.width, height: $0.height,
                                                            bitrateBitsPerSecond: 300_000 * $0.width / 320,
                                                            keyframeIntervalSeconds: 1, preset: "ultrafast"))
        }
        let codec: VideoCodec = ["libx265": .hevc, "libsvtav1": .av1][encoderName] ?? .h264
        var packetizers = try sizes.enumerated().map { index, size in
            try FLVStreamPacketizer(
                description: RTMPStreamDescription(codec: codec, width: size.width, height: size.height, framesPerSecond: 30,
                                                   videoBitrateBitsPerSecond: 300_000),
                messageStreamID: 1, trackID: UInt8(index))
        }
        var file = FLVFile()
        var clocks = Array(repeating: RTMPMediaClock(), count: sizes.count)
        var sentHeader = Array(repeating: false, count: sizes.count)
        var sent = Array(repeating: 0, count: sizes.count)
        var keyMillis = Array(repeating: [UInt32](), count: sizes.count)
        var keyCaptureNanos = Array(repeating: [Int64](), count: sizes.count)
        func send(_ frame: EncodedVideoFrame, track: Int) throws {
            let time = clocks[track].video(ptsNanos: frame.ptsNanos, dtsNanos: frame.dtsNanos)
            if frame.isKeyFrame {
                keyMillis[track].append(time.timestamp)
                keyCaptureNanos[track].append(frame.ptsNanos)
                if !sentHeader[track] {
                    file.append(try packetizers[track].sequenceHeader(for: frame, timestamp: time.timestamp))
                    sentHeader[track] = true
                }
            }
            guard sentHeader[track] else { return }
            file.append(packetizers[track].codedFrame(frame, timestamp: time.timestamp, compositionOffset: time.compositionOffset))
            sent[track] += 1
        }
        for number in 0..<frames {
            for track in sizes.indices {
                guard let picture = try videos[track].frame(number: number) else { continue }
                var encoded: [EncodedVideoFrame] = []
                try encoders[track].encode(picture) { encoded.append($0) }
                for frame in encoded { try send(frame, track: track) }
            }
        }
        for track in sizes.indices {
            var encoded: [EncodedVideoFrame] = []
            try encoders[track].flush { encoded.append($0) }
            for frame in encoded { try send(frame, track: track) }
        }
        return (file.bytes, sent, keyMillis, keyCaptureNanos)
    }
}

/// An FLV file (FLV spec §E.2, §E.3): the header, then each RTMP media message as a tag with its
/// PreviousTagSize. Video only.
struct FLVFile {
    private(set) var bytes: [UInt8] = Array("FLV".utf8) + [0x01, 0x01, 0, 0, 0, 9, 0, 0, 0, 0]

    mutating func append(_ message: RTMPMessage) {
        let body = Array(message.payload.readableBytesView)
        let size = UInt32(body.count)
        let time = message.timestamp
        bytes += [message.type.rawValue] + Self.bigEndian24(size) + Self.bigEndian24(time & 0xFF_FFFF) + [UInt8(time >> 24)] + [0, 0, 0]
        bytes += body
        let tagSize = size + 11
        bytes += [UInt8(tagSize >> 24), UInt8(truncatingIfNeeded: tagSize >> 16), UInt8(truncatingIfNeeded: tagSize >> 8), UInt8(truncatingIfNeeded: tagSize)]
    }

    private static func bigEndian24(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
