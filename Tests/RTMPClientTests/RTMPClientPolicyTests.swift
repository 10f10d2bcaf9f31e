import Foundation
import RTMPClient
import Testing
import TestSupport

@Suite struct RTMPClientPolicyTests {
    @Test func mediaClockIsMonotonicAndRelative() {
        var clock = RTMPMediaClock()
        let start: Int64 = 5_000_000_000_000
        #expect(clock.video(ptsNanos: start + 66_000_000, dtsNanos: start) == (0, 66) as (UInt32, Int32))
        #expect(clock.video(ptsNanos: start + 33_400_000, dtsNanos: start + 33_400_000).timestamp == 33)
        // A DTS that steps back (an encoder restart) is clamped, never sent backwards or twice.
        #expect(clock.video(ptsNanos: start + 10_000_000, dtsNanos: start + 10_000_000).timestamp == 34)
        // Two frames in the same millisecond (a burst after a stall): the second goes 1 ms later.
        #expect(clock.video(ptsNanos: start + 34_100_000, dtsNanos: start + 34_100_000).timestamp == 35)
        #expect(clock.video(ptsNanos: start + 66_700_000, dtsNanos: start + 66_700_000).timestamp == 67)
        #expect(clock.audio(timestampNanos: start + 40_000_000) == 40)
        #expect(clock.audio(timestampNanos: start - 1_000_000) == 40)
    }

    /// Multitrack: frames of different tracks captured together keep one time (one origin, a sequence
    /// per track), so the tracks' keyframes share their times; each track alone still strictly increases.
    @Test func mediaClockKeepsASequencePerTrackFromOneOrigin() {
        var clock = RTMPMediaClock(videoTracks: 3)
        let start: Int64 = 5_000_000_000_000
        for track in 0..<3 {
            #expect(clock.video(ptsNanos: start, dtsNanos: start, track: track).timestamp == 0, "track \(track)")
        }
        for track in 0..<3 {
            #expect(clock.video(ptsNanos: start + 33_300_000, dtsNanos: start + 33_300_000, track: track).timestamp == 33, "track \(track)")
        }
        // Within a track, the same millisecond twice still goes 1 ms later; the other tracks are untouched.
        #expect(clock.video(ptsNanos: start + 33_400_000, dtsNanos: start + 33_400_000, track: 1).timestamp == 34)
        #expect(clock.video(ptsNanos: start + 66_700_000, dtsNanos: start + 66_700_000, track: 2).timestamp == 67)
        #expect(clock.currentMillis == 67)
    }

    @Test func latencyQuantiles() throws {
        var recorder = SendLatencyRecorder(capacity: 100)
        for value in 1...1000 { recorder.record(nanos: Int64(value)) }
        #expect(recorder.count == 100)
        #expect(try #require(recorder.quantileNanos(0.5)) == 950)
        #expect(try #require(recorder.quantileNanos(0.99)) == 999)
    }

    /// The offsets TCPInfo reads must match this kernel's <linux/tcp.h>.
    @Test func tcpInfoOffsetsMatchTheKernelHeader() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("offsets.c")
        try """
        #include <linux/tcp.h>
        #include <stddef.h>
        #include <stdio.h>
        int main(void) { printf("%zu %zu", offsetof(struct tcp_info, tcpi_rtt), offsetof(struct tcp_info, tcpi_notsent_bytes)); return 0; }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        try ExternalTool.run("cc", [source, "-o", dir.file("offsets")], timeoutSeconds: 60)
        let output = try ExternalTool.run(dir.file("offsets"), [], timeoutSeconds: 10).output
        #expect(output == "\(TCPInfo.rttOffset) \(TCPInfo.notSentBytesOffset)")
    }
}
