import Engine
import Testing

/// What viewers' pages report: checked figures into the output's histogram, the latest report of
/// each viewer pooled for the status, forgotten once a viewer stops reporting.
@Suite struct ViewerLatencyBookTests {
    static let key = ViewerLatencyBook.OutputKey(camera: "cam0", output: "whep")
    static let second: Int64 = 1_000_000_000

    static func report(_ viewer: String, _ latencies: [Double], clock: String = "capture_time") throws -> ViewerLatencyReport {
        try ViewerLatencyReport(viewer: viewer, clock: clock, latenciesMilliseconds: latencies)
    }

    /// The exposition line `name{…output="whep"…} value` of a series, its value.
    static func value(_ text: String, _ name: String, containing part: String? = nil) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(name + "{") && $0.contains(#"output="whep""#) && part.map($0.contains) != false }
            .flatMap { $0.split(separator: " ").last.map(String.init) }
    }

    @Test func everyFigureGoesIntoTheOutputsHistogram() throws {
        let metrics = EngineMetrics()
        let book = ViewerLatencyBook(registry: metrics.registry)
        #expect(book.record(try Self.report("a", [12, 40, 250]), for: Self.key, now: 0))
        #expect(book.record(try Self.report("b", [15], clock: "frame_code"), for: Self.key, now: 0))
        let text = metrics.render()
        #expect(Self.value(text, "livepush_viewer_latency_seconds_count") == "4", "\(text)")
        #expect(Self.value(text, "livepush_viewer_latency_seconds_bucket", containing: #"le="0.02""#) == "2", "\(text)")
        #expect(Self.value(text, "livepush_viewer_latency_seconds_bucket", containing: #"le="0.05""#) == "3", "\(text)")
        #expect(Self.value(text, "livepush_viewer_latency_seconds_bucket", containing: #"le="+Inf""#) == "4", "\(text)")
        #expect(text.contains(#"camera="cam0""#))
    }

    @Test func theSummaryPoolsEachViewersLatestReport() throws {
        let book = ViewerLatencyBook(registry: EngineMetrics().registry)
        #expect(book.summary(for: Self.key, now: 0) == nil, "no viewer reported yet")
        _ = book.record(try Self.report("a", [500, 500]), for: Self.key, now: 0)
        _ = book.record(try Self.report("a", [10, 20, 30]), for: Self.key, now: 5 * Self.second)
        _ = book.record(try Self.report("b", [40, 50], clock: "frame_code"), for: Self.key, now: 6 * Self.second)
        let summary = try #require(book.summary(for: Self.key, now: 7 * Self.second))
        #expect(summary.viewersReporting == 2 && summary.samples == 5, "only each viewer's latest report: \(summary)")
        #expect(summary.p50Milliseconds == 30 && summary.p99Milliseconds == 50 && summary.lastMilliseconds == 50, "\(summary)")
        #expect(summary.clocks == ["capture_time", "frame_code"])
        #expect(book.summary(for: .init(camera: "cam0", output: "other"), now: 7 * Self.second) == nil)
    }

    @Test func aViewerThatStopsReportingIsForgotten() throws {
        let book = ViewerLatencyBook(registry: EngineMetrics().registry, forgetAfterSeconds: 15)
        _ = book.record(try Self.report("gone", [100]), for: Self.key, now: 0)
        _ = book.record(try Self.report("stays", [20]), for: Self.key, now: 10 * Self.second)
        #expect(book.summary(for: Self.key, now: 14 * Self.second)?.viewersReporting == 2)
        let later = try #require(book.summary(for: Self.key, now: 16 * Self.second))
        #expect(later.viewersReporting == 1 && later.p99Milliseconds == 20, "\(later)")
        #expect(book.summary(for: Self.key, now: 26 * Self.second) == nil)
    }

    @Test func anOutputKeepsAtMostItsShareOfViewers() throws {
        let book = ViewerLatencyBook(registry: EngineMetrics().registry, maximumViewersPerOutput: 2)
        #expect(book.record(try Self.report("a", [1]), for: Self.key, now: 0))
        #expect(book.record(try Self.report("b", [1]), for: Self.key, now: 0))
        #expect(!book.record(try Self.report("c", [1]), for: Self.key, now: 0), "a third viewer waits")
        #expect(book.record(try Self.report("a", [2]), for: Self.key, now: 1), "a kept viewer reports on")
        #expect(book.record(try Self.report("c", [1]), for: Self.key, now: 16 * Self.second), "room once the others were forgotten")
    }

    @Test(arguments: [
        ("", "capture_time", [1.0], ViewerLatencyReportError.badViewer),
        ("a b", "capture_time", [1.0], .badViewer),
        ("<script>", "capture_time", [1.0], .badViewer),
        (String(repeating: "a", count: 65), "capture_time", [1.0], .badViewer),
        ("a", "rvfc", [1.0], .unknownClock("rvfc")),
        ("a", "capture_time", [], .latencyCount(0)),
        ("a", "capture_time", Array(repeating: 1.0, count: 301), .latencyCount(301)),
        ("a", "capture_time", [5, -1], .latencyOutOfRange(-1)),
        ("a", "frame_code", [60_000.5], .latencyOutOfRange(60_000.5)),
        ("a", "frame_code", [.infinity], .latencyOutOfRange(.infinity)),
    ])
    func badReportsAreRefused(viewer: String, clock: String, latencies: [Double], expected: ViewerLatencyReportError) {
        #expect(throws: expected) { try ViewerLatencyReport(viewer: viewer, clock: clock, latenciesMilliseconds: latencies) }
    }

    @Test func notANumberIsRefused() {
        #expect(throws: ViewerLatencyReportError.self) { try ViewerLatencyReport(viewer: "a", clock: "capture_time", latenciesMilliseconds: [.nan]) }
    }

    @Test func theLargestGoodReportIsTaken() throws {
        let report = try ViewerLatencyReport(viewer: String(repeating: "Z9-", count: 21), clock: "frame_code",
                                             latenciesMilliseconds: Array(repeating: 60_000, count: 300))
        #expect(report.latenciesMilliseconds.count == 300)
    }
}
