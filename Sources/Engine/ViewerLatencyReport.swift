/// Which clock a viewer's page measured with (docs/capture-time.md): the `abs-capture-time`
/// header extension's capture time (Chromium's `captureTimestamp`), or the frame code burned into
/// the test pictures. Both are the sender's wall clock against the page's.
public enum ViewerLatencyClock: String, Sendable, Codable, Hashable {
    case captureTime = "capture_time"
    case frameCode = "frame_code"
}

/// One viewer's figures since its last report, checked: the values a page may send, so what reaches
/// the histogram is a latency and not whatever a request held.
public struct ViewerLatencyReport: Sendable, Equatable {
    public let viewer: String
    public let clock: ViewerLatencyClock
    public let latenciesMilliseconds: [Double]

    /// A page reports every 5 s: at 60 fps that is 300 frames.
    public static let maximumLatencies = 300
    /// A minute: anything later is not a live viewer's figure.
    public static let latencyRangeMilliseconds = 0.0...60_000
    public static let maximumViewerIDLength = 64

    public init(viewer: String, clock: String, latenciesMilliseconds: [Double]) throws(ViewerLatencyReportError) {
        guard (1...Self.maximumViewerIDLength).contains(viewer.utf8.count),
              viewer.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                  || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            throw .badViewer
        }
        guard let clock = ViewerLatencyClock(rawValue: clock) else { throw .unknownClock(clock) }
        guard (1...Self.maximumLatencies).contains(latenciesMilliseconds.count) else { throw .latencyCount(latenciesMilliseconds.count) }
        if let bad = latenciesMilliseconds.first(where: { !Self.latencyRangeMilliseconds.contains($0) }) { throw .latencyOutOfRange(bad) }
        self.viewer = viewer
        self.clock = clock
        self.latenciesMilliseconds = latenciesMilliseconds
    }
}

public enum ViewerLatencyReportError: Error, Equatable, CustomStringConvertible {
    case badViewer
    case unknownClock(String)
    case latencyCount(Int)
    case latencyOutOfRange(Double)

    public var description: String {
        switch self {
        case .badViewer:
            "viewer must be 1 to \(ViewerLatencyReport.maximumViewerIDLength) letters, digits or '-'"
        case .unknownClock(let clock):
            "clock '\(clock)' must be \(ViewerLatencyClock.captureTime.rawValue) or \(ViewerLatencyClock.frameCode.rawValue)"
        case .latencyCount(let count):
            "latencies_ms must hold 1 to \(ViewerLatencyReport.maximumLatencies) figures (got \(count))"
        case .latencyOutOfRange(let value):
            "latency \(value) ms is outside 0…60000 ms (a viewer whose clock runs behind the sender's measures below 0: keep both on NTP)"
        }
    }
}

/// `/api/status`: what an output's viewers reported lately (``ViewerLatencyBook``).
public struct ViewerLatencySummary: Codable, Sendable, Equatable {
    /// Viewers whose latest report is recent enough to count.
    public var viewersReporting: Int
    /// Figures in those latest reports, pooled for the percentiles.
    public var samples: Int
    public var p50Milliseconds: Double?
    public var p99Milliseconds: Double?
    /// The last figure of the most recent report.
    public var lastMilliseconds: Double?
    /// The clocks the reports measured with (`capture_time`, `frame_code`).
    public var clocks: [String]
}
