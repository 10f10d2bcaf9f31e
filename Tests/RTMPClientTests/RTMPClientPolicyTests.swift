import Foundation
import Pipeline
import RTMPClient
import Testing
import TestSupport

@Suite struct RTMPClientPolicyTests {
    @Test func backoffDoublesWithJitterUpToTheMaximum() throws {
        let policy = ReconnectPolicy(initialDelaySeconds: 1, maximumDelaySeconds: 8)
        var random = SplitMix64(seed: 42)
        for (attempt, step) in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 8.0), (40, 8.0)] {
            let delay = try #require(policy.delaySeconds(beforeAttempt: attempt, random: &random))
            #expect(delay >= step / 2 && delay <= step, "attempt \(attempt): \(delay)")
        }
    }

    @Test func backoffGivesUpAfterTheLimit() {
        let policy = ReconnectPolicy(maximumAttempts: 2)
        var random = SplitMix64(seed: 1)
        #expect(policy.delaySeconds(beforeAttempt: 2, random: &random) != nil)
        #expect(policy.delaySeconds(beforeAttempt: 3, random: &random) == nil)
    }

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

    @Test func adaptiveBitrateCutsOnCongestionAndRecoversWithBackoff() {
        var controller = AdaptiveBitrateController(settings: .init(targetBitsPerSecond: 2_000_000))
        var now: Int64 = 0
        func sample(queue: Int64, unsent: Int? = 0) -> Int? {
            now += 500_000_000
            return controller.update(.init(nowNanos: now, queuedMilliseconds: queue, unsentBytes: unsent, rttMicroseconds: 1000))
        }
        /// Clear samples until the bitrate changes: (new bitrate, seconds waited).
        func untilRaised() -> (Int?, Double) {
            var samples = 0
            while samples < 200 {
                samples += 1
                if let raised = sample(queue: 0) { return (raised, Double(samples) / 2) }
            }
            return (nil, Double(samples) / 2)
        }
        #expect(sample(queue: 10) == nil)
        #expect(sample(queue: 900) == 1_400_000)
        #expect(sample(queue: 900) == nil, "at most one cut a second")
        #expect(sample(queue: 900) == 980_000)
        #expect(sample(queue: 0, unsent: 200_000) == nil)
        // Kernel backlog alone (1.6 s of data unsent) is congestion too.
        #expect(sample(queue: 0, unsent: 200_000) == 686_000)
        // One congested spell: the first raise waits the initial 4 s hold, the next ones a second each.
        #expect(untilRaised() == (754_600, 4))
        #expect(untilRaised() == (830_060, 1))
        // Congestion right after a raise: the probe failed, so the hold doubles to 8 s.
        #expect(sample(queue: 900) == 581_042)
        #expect(untilRaised() == (639_146, 8))
    }

    @Test func adaptiveBitrateNeverGoesBelowTheMinimum() {
        var controller = AdaptiveBitrateController(settings: .init(targetBitsPerSecond: 1_000_000, minimumBitsPerSecond: 400_000))
        for second in 0..<20 {
            _ = controller.update(.init(nowNanos: Int64(second) * 1_000_000_000, queuedMilliseconds: 5000))
        }
        #expect(controller.bitsPerSecond == 400_000)
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
