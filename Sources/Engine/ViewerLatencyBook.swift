import MediaCore
import Prometheus
import Synchronization

/// The glass-to-glass latency viewers' pages measure and post back (`POST …/viewer-latency`,
/// docs/capture-time.md): every figure goes into the `livepush_viewer_latency_seconds` histogram of
/// its output, and each viewer's latest report is kept for ``summary(camera:output:now:)`` (what
/// `/api/status` shows) until the viewer stops reporting for ``forgetAfterNanos``.
///
/// A viewer is the random id its page made up; the camera and output are the server's own names
/// (the route resolves them), so no label comes from a request. At most ``maximumViewersPerOutput``
/// viewers are kept per output: a report from one more is refused until one is forgotten.
public final class ViewerLatencyBook: Sendable {
    public struct OutputKey: Hashable, Sendable {
        public let camera: String
        public let output: String

        public init(camera: String, output: String) {
            self.camera = camera
            self.output = output
        }
    }

    private struct LatestReport {
        var latenciesMilliseconds: [Double]
        var clock: ViewerLatencyClock
        var receivedNanos: Int64
    }

    private let reports = Mutex<[OutputKey: [String: LatestReport]]>([:])
    private let registry: PrometheusCollectorRegistry
    let forgetAfterNanos: Int64
    let maximumViewersPerOutput: Int
    /// From a frame to a few seconds: a same-machine viewer sits in the first buckets, a viewer
    /// across the internet behind a jitter buffer in the middle ones, a stalled one at the top.
    static let buckets: [Duration] = [10, 20, 33, 50, 75, 100, 150, 200, 300, 500, 1000, 2000, 5000].map { .milliseconds($0) }

    /// `registry` is the one `/metrics` renders (``EngineMetrics/registry``).
    public init(registry: PrometheusCollectorRegistry, forgetAfterSeconds: Int64 = 15, maximumViewersPerOutput: Int = 64) {
        self.registry = registry
        self.forgetAfterNanos = forgetAfterSeconds * 1_000_000_000
        self.maximumViewersPerOutput = maximumViewersPerOutput
    }

    /// Records one viewer's report (figures already validated, ``ViewerLatencyReport``); false when
    /// the output already keeps as many other viewers as it may.
    public func record(_ report: ViewerLatencyReport, for key: OutputKey, now: Int64 = MonotonicClock.nowNanos()) -> Bool {
        let kept = reports.withLock { reports in
            var viewers = reports[key, default: [:]].filter { now - $0.value.receivedNanos < forgetAfterNanos }
            guard viewers[report.viewer] != nil || viewers.count < maximumViewersPerOutput else { return false }
            viewers[report.viewer] = LatestReport(latenciesMilliseconds: report.latenciesMilliseconds, clock: report.clock, receivedNanos: now)
            reports[key] = viewers
            return true
        }
        guard kept else { return false }
        let histogram = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(metricName: "livepush_viewer_latency_seconds", unitName: "",
                                             helpText: "Glass-to-glass latency viewers' pages measured and reported, by output."),
            labels: [("camera", key.camera), ("output", key.output)], buckets: Self.buckets)
        for milliseconds in report.latenciesMilliseconds { histogram.recordNanoseconds(Int64(milliseconds * 1e6)) }
        return true
    }

    /// The viewers of `key` that reported within ``forgetAfterNanos``, their latest figures pooled;
    /// nil when none did.
    public func summary(for key: OutputKey, now: Int64 = MonotonicClock.nowNanos()) -> ViewerLatencySummary? {
        let current = reports.withLock { reports -> [LatestReport] in
            let viewers = reports[key, default: [:]].filter { now - $0.value.receivedNanos < forgetAfterNanos }
            reports[key] = viewers.isEmpty ? nil : viewers
            return Array(viewers.values)
        }
        guard let latest = current.max(by: { $0.receivedNanos < $1.receivedNanos }) else { return nil }
        let pooled = current.flatMap(\.latenciesMilliseconds).sorted()
        func percentile(_ fraction: Double) -> Double? {
            pooled.isEmpty ? nil : pooled[min(pooled.count - 1, Int(fraction * Double(pooled.count)))]
        }
        return ViewerLatencySummary(viewersReporting: current.count, samples: pooled.count,
                                    p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
                                    lastMilliseconds: latest.latenciesMilliseconds.last,
                                    clocks: Set(current.map(\.clock)).map(\.rawValue).sorted())
    }

    /// `cameras` with each output's summary filled in (``OutputReport/viewerLatency``).
    func annotate(_ cameras: [CameraReport], now: Int64 = MonotonicClock.nowNanos()) -> [CameraReport] {
        cameras.map { camera in
            var camera = camera
            for index in camera.outputs.indices {
                camera.outputs[index].viewerLatency = summary(for: OutputKey(camera: camera.id, output: camera.outputs[index].id), now: now)
            }
            return camera
        }
    }
}
