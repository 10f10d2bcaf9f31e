import Codec
import Foundation
import MediaCore
import Recording
import Testing
import TestSupport

extension MP4RecorderTests {
    /// CPU-adaptation steps halve the picture mid-recording and later restore it (each time the encoder
    /// reopens with an IDR and new SPS/PPS in band): the file still decodes end to end with ffmpeg,
    /// every frame in order.
    @Test func aSizeChangeMidRecordingStaysDecodable() throws {
        let dir = try TemporaryDirectory()
        let recorder = MP4Recorder(settings: RecordingSettings(path: dir.file("adapted.mp4")))
        let video = SyntheticVideo(width: Self.width, height: Self.height, framesPerSecond: 30)
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: Self.width, height: Self.height, bitrateBitsPerSecond: 800_000,
                                                                      keyframeIntervalSeconds: 1, preset: "ultrafast"))
        for number in 0..<90 {
            if number == 30 { try encoder.adapt(width: Self.width / 2, height: Self.height / 2, framesPerSecond: 30) }
            if number == 60 { try encoder.adapt(width: Self.width, height: Self.height, framesPerSecond: 30) }
            guard let frame = try video.frame(number: number) else { continue }
            try encoder.encode(frame) { recorder.onEncodedFrame($0) }
        }
        try encoder.flush { recorder.onEncodedFrame($0) }
        recorder.finish()
        #expect(recorder.statistics.framesWritten == 90 && recorder.statistics.lastError == nil)
        // ffmpeg scales every frame to the first one's size on the way out, so all codes read at 640x360.
        let codes = try Self.frameCodes(of: dir.file("adapted.mp4"), in: dir)
        #expect(codes.map { $0?.frameNumber } == (0..<90).map { UInt32($0) })
    }
}
