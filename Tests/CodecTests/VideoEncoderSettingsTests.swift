import Glibc
import MediaCore
import Testing
@testable import Codec

@Suite struct VideoEncoderSettingsTests {
    static func with(_ change: (inout VideoEncoderSettings) -> Void) -> VideoEncoderSettings {
        var settings = VideoEncoderSettings()
        change(&settings)
        return settings
    }

    @Test(arguments: [
        (with { $0.width = 1279 }, "width"),
        (with { $0.height = 721 }, "height"),
        (with { $0.bitrateBitsPerSecond = 0 }, "bitrate"),
        (with { $0.keyframeIntervalSeconds = 0 }, "keyint"),
        (with { $0.framesPerSecond = 0 }, "fps"),
        (with { $0.maxBitrateBitsPerSecond = 1000 }, "maxrate"),
        (with { $0.preset = "warpspeed" }, "preset"),
        (with { $0.tune = "nonsense" }, "tune"),
        (with { $0.level = "9.9" }, "level"),
    ])
    func badSettingNamesTheSetting(settings: VideoEncoderSettings, setting: String) {
        do {
            _ = try VideoEncoder(settings: settings)
            Issue.record("expected an error naming '\(setting)'")
        } catch {
            guard case let .invalidSetting(name, _, _) = error else {
                Issue.record("expected invalidSetting(\(setting)), got \(error)")
                return
            }
            #expect(name == setting)
            #expect(error.description.contains("'\(setting)'"))
        }
    }

    @Test func unknownEncoderListsTheAvailableOnes() {
        do {
            _ = try VideoEncoder(settings: Self.with { $0.encoderName = "h264_nonexistent" })
            Issue.record("expected encoderNotAvailable")
        } catch {
            guard case let .encoderNotAvailable(name, available) = error else {
                Issue.record("expected encoderNotAvailable, got \(error)")
                return
            }
            #expect(name == "h264_nonexistent")
            #expect(available.contains("libx264"))
            #expect(error.description.contains("libx264") && error.description.contains("'encoder'"))
        }
    }

    @Test func availableEncodersOpenForReal() {
        let available = VideoEncoder.availableEncoders()
        #expect(available.contains { $0.name == "libx264" && $0.codec == .h264 })
        // No GPU in CI: hardware encoders are compiled in but must not be listed as usable.
        #expect(!available.contains { $0.name == "h264_nvenc" })
    }

    /// Probing opens every encoder, SVT-AV1 included, which raises its caller to SCHED_FIFO 99 when
    /// it may (as root, as the tests run): the calling thread must come back as it was.
    @Test func probingLeavesTheCallersSchedulingAlone() {
        var before: Int32 = -1, after: Int32 = -1
        var parameters = sched_param()
        _ = pthread_getschedparam(pthread_self(), &before, &parameters)
        let available = VideoEncoder.availableEncoders()
        _ = pthread_getschedparam(pthread_self(), &after, &parameters)
        #expect(available.contains { $0.name == "libsvtav1" }, "Debian's FFmpeg has SVT-AV1: \(available.map(\.name))")
        #expect(after == before && after == SCHED_OTHER, "policy \(after), priority \(parameters.sched_priority)")
    }

    /// Every encoder `livepush encoders` lists encodes with livepush's defaults (preset veryfast, tune
    /// zerolatency): each family maps or drops what it does not take. Live encodes never reorder:
    /// every packet comes out in presentation order (AV1 in SVT's low-delay mode).
    @Test func everyListedEncoderStreamsWithTheDefaults() throws {
        let available = VideoEncoder.availableEncoders()
        #expect(available.count >= 3, "\(available.map(\.name))")
        for encoder in available {
            let settings = VideoEncoderSettings(encoderName: encoder.name, width: 320, height: 240, bitrateBitsPerSecond: 400_000)
            let video = try VideoEncoder(settings: settings)
            let buffer = try I420Buffer(width: 320, height: 240)
            var timestamps: [Int64] = []
            for index in 0..<12 {
                buffer.fill(y: UInt8(40 + index * 10), u: 128, v: 128)
                try video.encode(VideoFrame(buffer: buffer, captureTimeNanos: Int64(index) * 33_333_333)) { timestamps.append($0.ptsNanos) }
            }
            try video.flush { timestamps.append($0.ptsNanos) }
            #expect(timestamps.count == 12, "\(encoder.name) produced \(timestamps.count) of 12 frames")
            #expect(timestamps == timestamps.sorted(), "\(encoder.name) reordered frames: \(timestamps)")
        }
    }

    /// SVT-AV1 takes its own numbers too; a preset it cannot take names what it can.
    @Test func presetsMapPerEncoderFamily() throws {
        #expect(try EncoderFamily.svtAV1.presetValue(for: "veryfast") == "10")
        #expect(try EncoderFamily.svtAV1.presetValue(for: "8") == "8")
        #expect(try EncoderFamily.x265.presetValue(for: "medium") == "medium")
        #expect(try EncoderFamily(encoderName: "h264_v4l2m2m").presetValue(for: "veryfast") == nil)
        #expect(throws: CodecError.self) { try EncoderFamily.svtAV1.presetValue(for: "14") }
        #expect(throws: CodecError.self) { try EncoderFamily.x264.presetValue(for: "7") }
    }

    @Test func keyframeIntervalInFrames() {
        #expect(VideoEncoderSettings(framesPerSecond: 30, keyframeIntervalSeconds: 2).keyframeIntervalFrames == 60)
        #expect(VideoEncoderSettings(framesPerSecond: 25, keyframeIntervalSeconds: 0.5).keyframeIntervalFrames == 13)
    }
}
