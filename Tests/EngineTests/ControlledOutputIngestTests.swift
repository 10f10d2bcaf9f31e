import Engine
import Output
import Testing

/// A `backup_mode: both` output is one of several publishing to every ingest at once: its status
/// names its ingest (mode `both`, its index, its target) whether it runs or not, so the dashboard
/// and `livepush_output_ingest` tell the ingests apart; every other output has no ingest.
@Suite struct ControlledOutputIngestTests {
    @Test func aBothModeOutputNamesItsIngest() async throws {
        let output = ControlledOutput(id: "yt-backup-1", kind: "rtmp", target: "rtmp://b/live2/***", ingest: 1) {
            ControlledOutputBitrateTests.CappingOutput(cap: 1_000_000)
        }
        #expect(output.status.ingest?.index == 1 && output.status.ingest?.mode == "both", "labelled before it starts: \(String(describing: output.status.ingest))")
        try await output.start(OutputStartContext())
        let ingest = try #require(output.status.ingest)
        #expect(ingest.index == 1 && ingest.mode == "both" && ingest.url == "rtmp://b/live2/***" && ingest.sinceUnixSeconds > 0, "\(ingest)")
        await output.stop()
        #expect(output.status.ingest?.index == 1, "still labelled once stopped")
    }

    @Test func anyOtherOutputHasNoIngest() async throws {
        let output = ControlledOutput(id: "record", kind: "record", target: "/tmp/x.mp4") { ControlledOutputBitrateTests.CappingOutput(cap: 1_000_000) }
        try await output.start(OutputStartContext())
        #expect(output.status.ingest == nil)
        await output.stop()
    }
}
