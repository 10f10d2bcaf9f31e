import Foundation
import Synchronization
import Testing
import MediaCore
@testable import Codec

/// The encoder thread's side of CPU adaptation: a step reopens the encoder at the rung's size,
/// starting with an IDR that carries that size's SPS/PPS in band.
@Suite(.timeLimit(.minutes(1))) struct EncoderQueueAdaptationTests {
    /// Every period is judged overuse (any encode is above a 0 % threshold), periods are short.
    static var alwaysOverloaded: CPUOveruseDetector.Thresholds {
        var thresholds = CPUOveruseDetector.Thresholds()
        thresholds.high = 0
        thresholds.overuseChecks = 1
        thresholds.periodNanos = 30_000_000
        return thresholds
    }

    @Test func aStepDownReopensAtTheSmallerSizeWithAnIDR() throws {
        let sink = CollectingSink()
        let steps = Mutex<[CPUAdaptation.Step]>([])
        let queue = try EncoderQueue(settings: VideoEncoderSettings(width: 640, height: 360, bitrateBitsPerSecond: 600_000, preset: "ultrafast"),
                                     capacity: 4, sink: sink, adaptation: CPUAdaptationSettings(minimumWidth: 320, minimumHeight: 180, minimumFramesPerSecond: 30),
                                     thresholds: Self.alwaysOverloaded, onAdaptationStep: { step in steps.withLock { $0.append(step) } })
        #expect(queue.statistics.adaptation?.rung.description == "640x360@30")
        let video = SyntheticVideo(width: 640, height: 360, poolCapacity: 16)
        for number in 0..<40 {
            // One frame in flight at a time: nothing is dropped, only the thresholds force the steps.
            for _ in 0..<2000 where queue.statistics.encoded + (queue.statistics.adaptation?.thinnedFrames ?? 0) < number { usleep(1000) }
            usleep(5000)
            queue.submit(try #require(try video.frame(number: number)))
        }
        queue.finish()
        let status = try #require(queue.statistics.adaptation)
        // 640x360 → 480x270 → 320x180, then the floor: no further step.
        #expect(steps.withLock { $0.map(\.to.description) } == ["480x270@30", "320x180@30"])
        #expect(status.rung.description == "320x180@30" && status.stepsDown == 2 && status.rungCount == 3)
        #expect(queue.droppedFrames == 0)
        let frames = sink.frames.withLock { $0 }
        // Each size starts with a keyframe whose in-band SPS declares it, and nothing of another size follows.
        var sizes: [String] = []
        for frame in frames where frame.isKeyFrame {
            let size = try #require(frame.parameterSets.pictureSize)
            let inBand = ParameterSets(codec: .h264, annexB: frame.data, nalUnitRanges: frame.nalUnitRanges)
            #expect(inBand.isComplete, "an IDR after a step carries its SPS/PPS in band")
            #expect(inBand.pictureSize.map { "\($0.width)x\($0.height)" } == "\(size.width)x\(size.height)")
            sizes.append("\(size.width)x\(size.height)")
        }
        #expect(sizes == ["640x360", "480x270", "320x180"])
        #expect(frames.map(\.ptsNanos) == frames.map(\.ptsNanos).sorted())
    }

    /// A bitrate change between a step and the frame that applies it (the arbiter acts at any time)
    /// keeps both: the new size and the new rate.
    @Test func aBitrateChangeRightAfterAStepKeepsTheStep() throws {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: 640, height: 360, bitrateBitsPerSecond: 600_000, preset: "ultrafast"))
        let video = SyntheticVideo(width: 640, height: 360)
        var frames: [EncodedVideoFrame] = []
        try encoder.encode(try #require(try video.frame(number: 0))) { frames.append($0) }
        try encoder.adapt(width: 320, height: 180, framesPerSecond: 15)
        try encoder.setBitrate(400_000)
        try encoder.encode(try #require(try video.frame(number: 1))) { frames.append($0) }
        try encoder.flush { frames.append($0) }
        #expect(encoder.settings.width == 320 && encoder.settings.height == 180 && encoder.settings.framesPerSecond == 15)
        #expect(encoder.settings.bitrateBitsPerSecond == 400_000)
        #expect(frames.count == 2 && frames.allSatisfy(\.isKeyFrame))
        #expect(frames.last?.parameterSets.pictureSize.map { "\($0.width)x\($0.height)" } == "320x180")
    }

    @Test func anEncoderThatFollowsTheFrameSizeCannotAdapt() {
        #expect(throws: CodecError.self) {
            try EncoderQueue(settings: VideoEncoderSettings(width: 320, height: 180, sizeChange: .reopen), sink: CollectingSink(),
                             adaptation: CPUAdaptationSettings())
        }
    }
}
