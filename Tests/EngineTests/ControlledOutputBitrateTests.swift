import Codec
import Output
import Pipeline
import Engine
import Synchronization
import Testing

/// A `serve` output stopped and started from the API is a new inner output each time: each gets
/// the pipeline's bitrate cap, and stopping lifts whatever cap the last one held.
@Suite struct ControlledOutputBitrateTests {
    /// An output that asks for a bitrate cap as soon as it is started, as RTMP adaptive bitrate
    /// does on a slow link.
    final class CappingOutput: StreamOutput {
        let cap: Int
        init(cap: Int) { self.cap = cap }
        var name: String { "capping" }
        func start(_ context: OutputStartContext) async throws { context.limitBitrate(cap) }
        func stop() async {}
        var status: OutputStatus { OutputStatus(state: .running) }
        func onEncodedFrame(_ frame: EncodedVideoFrame) {}
        func onEncoderError(_ error: CodecError) {}
    }

    @Test func eachInnerOutputGetsTheCapAndStopLiftsIt() async throws {
        let caps = Mutex([600_000, 900_000])
        let output = ControlledOutput(id: "rtmp", kind: "rtmp", target: "rtmp://x/live/***") {
            CappingOutput(cap: caps.withLock { $0.removeFirst() })
        }
        let arbiter = BitrateArbiter(configuredBitsPerSecond: 2_000_000) { _ in }
        try await output.start(OutputStartContext(limitBitrate: { arbiter.limit($0, source: 0) }))
        #expect(arbiter.bitsPerSecond == 600_000)
        await output.stop()
        #expect(arbiter.bitsPerSecond == 2_000_000)
        try await output.resume()
        #expect(arbiter.bitsPerSecond == 900_000)
        await output.stop()
        #expect(arbiter.summary.lowestBitsPerSecond == 600_000 && arbiter.bitsPerSecond == 2_000_000)
    }
}
