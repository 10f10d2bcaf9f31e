import Codec
import MediaCore
import Testing

/// One scale per captured frame for every encoder of a size: the second asker gets the very buffer
/// the first scaled; a new frame (even in a reused capture buffer) is scaled anew; one that fell out
/// of the recent list is scaled again; the scaled buffers come from a pool that does not grow.
@Suite struct SharedScalerTests {
    static func frame(_ buffer: I420Buffer, at nanos: Int64) -> VideoFrame { VideoFrame(buffer: buffer, captureTimeNanos: nanos) }

    @Test func siblingsTakeTheBufferTheFirstScaled() throws {
        let scaler = SharedScaler(width: 32, height: 18, sharers: 2, recentCapacity: 2)
        let capture = try I420Buffer(width: 64, height: 36)
        capture.fill(y: 200, u: 90, v: 160)
        let first = try scaler.scaled(Self.frame(capture, at: 1))
        let second = try scaler.scaled(Self.frame(capture, at: 1))
        #expect(first.scaledHere && !second.scaledHere)
        #expect(first.buffer === second.buffer && first.buffer.width == 32 && first.buffer.height == 18)
        let reference = try I420Buffer(width: 32, height: 18)
        reference.fill(y: 200, u: 90, v: 160)
        #expect(try first.buffer.psnr(against: reference) > 60, "the scaled picture is the captured one")

        // The capture pool hands the same buffer out again for a later frame: that is a new picture.
        capture.fill(y: 20, u: 128, v: 128)
        let later = try scaler.scaled(Self.frame(capture, at: 2))
        #expect(later.scaledHere && later.buffer !== first.buffer)
    }

    @Test func aSiblingTooFarBehindScalesAgainAndThePoolStaysBounded() throws {
        let scaler = SharedScaler(width: 32, height: 18, sharers: 2, recentCapacity: 2)
        let captures = try (0..<4).map { _ in try I420Buffer(width: 64, height: 36) }
        var kept: [I420Buffer] = []
        for (index, capture) in captures.enumerated() {
            let result = try scaler.scaled(Self.frame(capture, at: Int64(index)))
            #expect(result.scaledHere)
            kept = [result.buffer]  // an encoder holds only the frame it encodes
        }
        let late = try scaler.scaled(Self.frame(captures[0], at: 0))
        #expect(late.scaledHere, "frame 0 left the two kept; the late sibling scales it itself")
        let recent = try scaler.scaled(Self.frame(captures[3], at: 3))
        #expect(!recent.scaledHere && recent.buffer === kept[0])
        // 36 more frames through a pool of 5 (2 kept + 2 sharers + 1): one that did not come back would throw poolExhausted.
        for index in 4..<40 { _ = try scaler.scaled(Self.frame(captures[index % 4], at: Int64(index))) }
        #expect(try scaler.scaled(Self.frame(captures[3], at: 39)).scaledHere == false, "steady state: pooled buffers come back")
    }
}
