import Prometheus

/// livepush's Prometheus metrics (swift-prometheus), served at `/metrics`.
///
/// Latency histograms are fed as frames pass; gauges and counters are refreshed from a
/// ``StatusReport`` on each scrape (``update(from:)``), so there is no timer of its own.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    static let latencyBuckets: [Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(33), .milliseconds(50),
                                             .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1)]

    public init() {}

    /// Capture → encoded time of one frame (queueing plus encoding).
    func recordEncodeLatency(camera: String, nanos: Int64) {
        registry.makeDurationHistogram(name: "livepush_stage_latency_seconds", labels: [("camera", camera), ("stage", "capture_to_encoded")],
                                       buckets: Self.latencyBuckets).recordNanoseconds(nanos)
    }

    func update(from report: StatusReport) {
        registry.makeGauge(name: "livepush_process_cpu_seconds_total").set(to: report.process.cpuSeconds)
        registry.makeGauge(name: "livepush_process_resident_memory_bytes").set(to: Double(report.process.residentBytes))
        registry.makeGauge(name: "livepush_uptime_seconds").set(to: report.uptimeSeconds)
        for camera in report.cameras {
            let labels = [("camera", camera.id)]
            registry.makeGauge(name: "livepush_capture_fps", labels: labels).set(to: camera.captureFps)
            registry.makeGauge(name: "livepush_encoded_fps", labels: labels).set(to: camera.encodedFps)
            registry.makeGauge(name: "livepush_encoded_bitrate_bits_per_second", labels: labels).set(to: camera.bitrateBitsPerSecond)
            registry.makeGauge(name: "livepush_target_bitrate_bits_per_second", labels: labels).set(to: Double(camera.targetBitrateBitsPerSecond))
            registry.makeGauge(name: "livepush_encoder_queue_depth", labels: labels).set(to: Double(camera.queueDepth))
            registry.makeGauge(name: "livepush_frames_encoded", labels: labels).set(to: Double(camera.framesEncoded))
            registry.makeGauge(name: "livepush_no_signal", labels: labels).set(to: camera.state == "no-signal" ? 1 : 0)
            for (reason, count) in [("capture", camera.droppedFrames.capture), ("encoder", camera.droppedFrames.encoder)] {
                registry.makeGauge(name: "livepush_dropped_frames", labels: labels + [("reason", reason)]).set(to: Double(count))
            }
            for output in camera.outputs {
                let labels = labels + [("output", output.id), ("kind", output.kind)]
                registry.makeGauge(name: "livepush_output_up", labels: labels).set(to: output.state == "running" ? 1 : 0)
                registry.makeGauge(name: "livepush_output_fps", labels: labels).set(to: output.fps)
                registry.makeGauge(name: "livepush_output_bitrate_bits_per_second", labels: labels).set(to: output.bitrateBitsPerSecond)
                registry.makeGauge(name: "livepush_output_bytes_sent", labels: labels).set(to: Double(output.bytesSent))
                registry.makeGauge(name: "livepush_output_reconnects", labels: labels).set(to: Double(output.reconnects))
                registry.makeGauge(name: "livepush_dropped_frames", labels: [("camera", camera.id), ("reason", "output:\(output.id)")]).set(to: Double(output.droppedFrames))
                if let rtt = output.rttMilliseconds {
                    registry.makeGauge(name: "livepush_output_rtt_seconds", labels: labels).set(to: rtt / 1000)
                }
            }
        }
    }

    /// The exposition text.
    public func render() -> String { registry.emitToString() }
}
