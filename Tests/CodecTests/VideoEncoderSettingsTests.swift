import Glibc
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

    @Test func keyframeIntervalInFrames() {
        #expect(VideoEncoderSettings(framesPerSecond: 30, keyframeIntervalSeconds: 2).keyframeIntervalFrames == 60)
        #expect(VideoEncoderSettings(framesPerSecond: 25, keyframeIntervalSeconds: 0.5).keyframeIntervalFrames == 13)
    }
}
