import Codec
import NIOCore
import RTMP
import RTMPClient
import Testing

@Suite struct RTMPSendQueueTests {
    private func push(_ header: UInt8, at millis: Int64, into queue: inout RTMPSendQueue) {
        let frame = TestFrames.frame(header, millis: millis)
        queue.push(.video(frame, VideoFrameImportance(frame)))
    }

    private func drainedTimes(_ queue: inout RTMPSendQueue) -> [Int64] {
        var times: [Int64] = []
        while let item = queue.pop() { times.append(item.timestampNanos / 1_000_000) }
        return times
    }

    @Test(arguments: [
        (TestFrames.idr, VideoFrameImportance.key),
        (TestFrames.referenceSlice, .reference),
        (TestFrames.disposableSlice, .nonReference),
    ])
    func classifiesH264Frames(header: UInt8, expected: VideoFrameImportance) {
        #expect(VideoFrameImportance(TestFrames.frame(header, millis: 0)) == expected)
    }

    @Test func keepsEverythingUnderTheLimit() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 1000))
        for index in 0..<10 { push(index == 0 ? TestFrames.idr : TestFrames.referenceSlice, at: Int64(index) * 33, into: &queue) }
        #expect(queue.count == 10)
        #expect(queue.drops.video == 0)
        #expect(!queue.keyFrameWanted)
    }

    @Test func dropsNonReferenceFramesFirst() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 1000))
        push(TestFrames.idr, at: 0, into: &queue)
        for index in 1...20 {
            push(index % 2 == 0 ? TestFrames.referenceSlice : TestFrames.disposableSlice, at: Int64(index) * 33, into: &queue)
        }
        // 660 ms queued: past half the limit, so the disposable frames went; references stay.
        #expect(queue.drops.nonReference == 10)
        #expect(queue.drops.reference == 0)
        #expect(queue.count == 11)
        #expect(!queue.waitingForKeyFrame)
        #expect(!queue.keyFrameWanted, "nothing depended on the dropped frames")
    }

    @Test func dropsTheGOPTailAndWaitsForTheNextKeyFrame() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 500))
        push(TestFrames.idr, at: 0, into: &queue)
        for index in 1...20 { push(TestFrames.referenceSlice, at: Int64(index) * 33, into: &queue) }
        // No keyframe queued after the first: everything went and later P-frames are refused.
        #expect(queue.waitingForKeyFrame)
        #expect(queue.keyFrameWanted)
        push(TestFrames.referenceSlice, at: 700, into: &queue)
        #expect(queue.isEmpty)
        push(TestFrames.idr, at: 733, into: &queue)
        push(TestFrames.referenceSlice, at: 766, into: &queue)
        #expect(drainedTimes(&queue) == [733, 766])
        #expect(queue.drops.video == 22, "the GOP (21 frames) and the P-frame refused while waiting")
    }

    @Test func keepsTheNewestKeyFrameAndWhatFollowsIt() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 500))
        for index in 0...18 { push(index % 9 == 0 ? TestFrames.idr : TestFrames.referenceSlice, at: Int64(index) * 33, into: &queue) }
        // At 528 ms the queue passed 500: the GOP before the keyframe at 297 ms went, that keyframe and its GOP stay.
        #expect(queue.peekIsKeyFrame)
        #expect(drainedTimes(&queue) == Array(stride(from: 297, through: 594, by: 33)))
        #expect(queue.drops.reference + queue.drops.key == 9)
        #expect(!queue.waitingForKeyFrame)
    }

    @Test func keepsAudioWhileDroppingVideo() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 300))
        push(TestFrames.idr, at: 0, into: &queue)
        for index in 1...15 {
            push(TestFrames.referenceSlice, at: Int64(index) * 33, into: &queue)
            queue.push(.audio(timestampNanos: Int64(index) * 33_000_000 + 1, packet: .aacRaw(.init(bytes: [1, 2]))))
        }
        var audio = 0, video = 0
        while let item = queue.pop() {
            if case .audio = item { audio += 1 } else { video += 1 }
        }
        #expect(audio == 15)
        #expect(video == 0)
        #expect(queue.drops.audio == 0)
    }

    @Test func boundsAudioWhenNothingDrains() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 100))
        for index in 0..<2000 {
            queue.push(.audio(timestampNanos: Int64(index) * 21_000_000, packet: .aacRaw(.init(bytes: [0]))))
        }
        #expect(queue.queuedNanos <= queue.limits.audioLimitNanos)
        #expect(queue.drops.audio > 0)
    }

    @Test func restartsAtAKeyFrame() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 5000))
        push(TestFrames.referenceSlice, at: 0, into: &queue)
        push(TestFrames.idr, at: 33, into: &queue)
        push(TestFrames.referenceSlice, at: 66, into: &queue)
        queue.restartAtKeyFrame()
        #expect(drainedTimes(&queue) == [33, 66])
        queue.restartAtKeyFrame()
        push(TestFrames.referenceSlice, at: 99, into: &queue)
        #expect(queue.isEmpty, "with no keyframe queued, a new connection waits for one")
    }

    @Test func asksForOneKeyFrameAtATimeAndOnlyWithRoomForIt() {
        var queue = RTMPSendQueue(limits: .init(milliseconds: 500))
        let audio = { (millis: Int64) in RTMPMediaItem.audio(timestampNanos: millis * 1_000_000, packet: .aacRaw(ByteBuffer(bytes: [1, 2]))) }
        push(TestFrames.idr, at: 0, into: &queue)
        for index in 1...20 {
            push(TestFrames.referenceSlice, at: Int64(index) * 33, into: &queue)
            queue.push(audio(Int64(index) * 33))
        }
        // The video went, but 640 ms of audio is still queued: an IDR now would be dropped on arrival.
        #expect(queue.keyFrameWanted)
        var granted = queue.takeKeyFrameRequest()
        #expect(!granted)
        while queue.queuedNanos > 200_000_000 { _ = queue.pop() }
        push(TestFrames.referenceSlice, at: 700, into: &queue)
        granted = queue.takeKeyFrameRequest()
        #expect(granted, "room again: ask once")
        push(TestFrames.referenceSlice, at: 733, into: &queue)
        granted = queue.takeKeyFrameRequest()
        #expect(queue.keyFrameWanted && !granted, "the first request is still unanswered")
        push(TestFrames.idr, at: 766, into: &queue)
        push(TestFrames.referenceSlice, at: 800, into: &queue)
        #expect(!queue.keyFrameWanted, "the keyframe healed the loss")
        #expect(drainedTimes(&queue).suffix(2) == [766, 800])
    }
}
