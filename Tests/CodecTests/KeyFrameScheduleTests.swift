import Codec
import Testing

/// Keyframes by capture time: the first frame, then the frame at each interval mark, whatever frames are missing.
@Suite struct KeyFrameScheduleTests {
    static let frameNanos: Int64 = 33_333_333

    /// The frames of `numbers` (at 30 fps from an origin) that the schedule keys.
    static func keyed(_ numbers: [Int], intervalSeconds: Double = 1) -> [Int] {
        var schedule = KeyFrameSchedule(intervalSeconds: intervalSeconds, framesPerSecond: 30)
        return numbers.filter { schedule.isKeyFrame(captureTimeNanos: 5_000_000_000 + Int64($0) * frameNanos) }
    }

    /// A camera at its nominal rate keys every interval × fps frames, as an encoder's own GOP would.
    @Test func aSteadyCameraKeysEveryIntervalOfFrames() {
        #expect(Self.keyed(Array(0..<100)) == [0, 30, 60, 90])
        #expect(Self.keyed(Array(0..<100), intervalSeconds: 2) == [0, 60])
    }

    /// Frames missing around a mark move that keyframe to the next frame there is; the marks after it stay on the grid.
    @Test func aGapMovesOneKeyframeAndKeepsTheGrid() {
        let frames = Array(0..<100).filter { !(28...32).contains($0) }
        #expect(Self.keyed(frames) == [0, 33, 60, 90])
        // A gap longer than the interval skips the marks it jumped over.
        #expect(Self.keyed(Array(0..<10) + Array(75..<100)) == [0, 75, 90])
    }

    /// A frame captured a little early (jitter under half a frame) still takes the mark.
    @Test func jitterUnderHalfAFrameKeepsTheMark() {
        var schedule = KeyFrameSchedule(intervalSeconds: 1, framesPerSecond: 30)
        let keyed = [0, 983, 990, 1020, 1995].map { schedule.isKeyFrame(captureTimeNanos: Int64($0) * 1_000_000) }
        #expect(keyed == [true, false, true, false, true])
    }
}
