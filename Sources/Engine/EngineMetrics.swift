import Output
import Pipeline
import Prometheus
import Synchronization

/// livepush's Prometheus metrics (swift-prometheus), served at `/metrics`.
///
/// Latency histograms are fed as frames pass; gauges and counters are refreshed from a
/// ``StatusReport`` on each scrape (``update(from:)``), so there is no timer of its own. Names follow
/// Prometheus' conventions: running totals are counters ending in `_total`, units are in the names,
/// and the process figures use the standard `process_*` names.
public final class EngineMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// Each counter series' running total at the last scrape (see ``total(_:_:_:)``).
    private let lastTotals = Mutex<[String: Double]>([:])
    static let latencyBuckets: [Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(33), .milliseconds(50),
                                             .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1)]

    public init() {}

    /// Capture → encoded time of one frame (queueing plus encoding).
    func recordEncodeLatency(camera: String, nanos: Int64) {
        registry.makeDurationHistogram(descriptor: Self.descriptor("livepush_stage_latency_seconds", "Time from capture to the encoded frame, by stage."),
                                       labels: [("camera", camera), ("stage", "capture_to_encoded")], buckets: Self.latencyBuckets)
            .recordNanoseconds(nanos)
    }

    func update(from report: StatusReport) {
        total("process_cpu_seconds_total", [], "Total user and system CPU time spent in seconds.", report.process.cpuSeconds)
        gauge("process_resident_memory_bytes", [], "Resident memory size in bytes.", Double(report.process.residentBytes))
        gauge("livepush_uptime_seconds", [], "Seconds since livepush serve started.", report.uptimeSeconds)
        for camera in report.cameras {
            let labels = [("camera", camera.id)]
            gauge("livepush_capture_frames_per_second", labels, "Frames captured per second.", camera.captureFps)
            gauge("livepush_encoded_frames_per_second", labels, "Frames encoded per second.", camera.encodedFps)
            // Prometheus' base unit is bytes: bitrates are exported divided by 8.
            gauge("livepush_encoded_bytes_per_second", labels, "Rate the encoder produces, bytes per second.", camera.bitrateBitsPerSecond / 8)
            gauge("livepush_target_bytes_per_second", labels, "Rate the encoder is asked for, bytes per second.", Double(camera.targetBitrateBitsPerSecond) / 8)
            gauge("livepush_encoder_queued_frames", labels, "Frames waiting for the encoder.", Double(camera.queueDepth))
            gauge("livepush_no_signal", labels, "1 while the camera shows the no-signal card.", camera.state == "no-signal" ? 1 : 0)
            if let onDemand = camera.onDemand {
                gauge("livepush_camera_idle", labels, "1 while an on-demand camera idles (capture closed: no viewer, no output).",
                      camera.state == "idle" ? 1 : 0)
                total("livepush_on_demand_starts_total", labels, "Times an on-demand camera started capturing for a viewer or an output.",
                      Double(onDemand.starts))
            }
            if let audio = camera.audio {
                gauge("livepush_audio_capturing", labels, "1 while the camera's audio source captures (0 while an on-demand camera idles with it).",
                      audio.state == AudioStatus.State.capturing.rawValue ? 1 : 0)
                total("livepush_audio_chunks_captured_total", labels, "10 ms audio chunks read from the camera's audio source.",
                      Double(audio.chunksCaptured))
                gauge("livepush_audio_clock_skew_seconds", labels, "Audio timestamps minus the video's capture clock (negative: audio lags), after correction.",
                      audio.clockSkewMillis / 1e3)
                gauge("livepush_audio_clock_drift_ppm", labels, "The audio device's sample clock against the capture clock, parts per million.",
                      audio.clockDriftPPM)
                gauge("livepush_audio_clock_correction_ppm", labels, "Sample frames inserted (positive) or dropped per million to keep audio on the video clock.",
                      audio.clockCorrectionPPM)
            }
            total("livepush_encoded_frames_total", labels, "Frames encoded.", Double(camera.framesEncoded))
            if let adaptation = camera.adaptation {
                gauge("livepush_adaptation_rung", labels, "CPU adaptation's rung: 0 is the configured size and rate, higher is further down.", Double(adaptation.rungIndex))
                gauge("livepush_adaptation_frames_per_second", labels, "The frame rate CPU adaptation encodes at now.", Double(adaptation.framesPerSecond))
                gauge("livepush_adaptation_height_pixels", labels, "The picture height CPU adaptation encodes at now.", Double(adaptation.height))
                for (direction, count) in [("down", adaptation.stepsDown), ("up", adaptation.stepsUp)] {
                    total("livepush_adaptation_steps_total", labels + [("direction", direction)], "CPU adaptation's steps, by direction.", Double(count))
                }
            }
            for (reason, count) in [("capture", camera.droppedFrames.capture), ("encoder", camera.droppedFrames.encoder)] {
                total("livepush_dropped_frames_total", labels + [("reason", reason)], Self.droppedHelp, Double(count))
            }
            for rendition in camera.renditions { updateRendition(rendition, camera: camera.id) }
            for output in camera.outputs {
                if let rendition = output.rendition {
                    gauge("livepush_output_rendition_info", labels + [("output", output.id), ("rendition", rendition)],
                          "1 for the rendition the output takes (outputs that serve every rendition have none).", 1)
                }
                let labels = labels + [("output", output.id), ("kind", output.kind)]
                gauge("livepush_output_up", labels, "1 while the output runs.", output.state == "running" ? 1 : 0)
                gauge("livepush_output_frames_per_second", labels, "Frames the output sends per second.", output.fps)
                gauge("livepush_output_bytes_per_second", labels, "Rate the output sends, bytes per second.", output.bitrateBitsPerSecond / 8)
                total("livepush_output_sent_bytes_total", labels, "Bytes the output sent.", Double(output.bytesSent))
                total("livepush_output_reconnects_total", labels, "Times the output reconnected.", Double(output.reconnects))
                total("livepush_output_held_frames_total", labels, "Delta frames held back after a loss until the next key frame.",
                      Double(output.framesHeldForKeyFrame))
                // An output's drops by where: its hand-off queue was full, or its socket's backlog.
                total("livepush_dropped_frames_total", [("camera", camera.id), ("reason", "output:\(output.id)")], Self.droppedHelp,
                      Double(output.droppedFrames - output.droppedFramesAtSocket))
                total("livepush_dropped_frames_total", [("camera", camera.id), ("reason", "output:\(output.id):socket")], Self.droppedHelp,
                      Double(output.droppedFramesAtSocket))
                if let delivery = output.delivery {
                    // One series per state, 1 for the current one (Prometheus' state-set pattern); all 0
                    // once the output stopped.
                    for state in DeliveryHealth.State.allCases {
                        gauge("livepush_output_health", labels + [("state", state.rawValue)],
                              "1 for the output's delivery health state (healthy, degraded, stalled, reconnecting, failed).",
                              output.health == state.rawValue ? 1 : 0)
                    }
                    total("livepush_output_acknowledged_bytes_total", labels, "Bytes the output's receiver acknowledged.",
                          Double(delivery.bytesAcknowledged))
                }
                if let rtt = output.rttMilliseconds {
                    gauge("livepush_output_rtt_seconds", labels, "Round-trip time to the output's receiver.", rtt / 1000)
                }
                if let srt = output.srt { updateSRT(srt, labels) }
                if let ingest = output.ingest {
                    gauge("livepush_output_ingest", labels, "Which ingest carries the output's stream: 0 the primary, 1… its backups.",
                          Double(ingest.index))
                }
            }
        }
    }

    /// One rendition's encode: its size and encoder as an info series, its rates, its own drops.
    private func updateRendition(_ rendition: RenditionReport, camera: String) {
        let labels = [("camera", camera), ("rendition", rendition.name)]
        gauge("livepush_rendition_info", labels + [("width", "\(rendition.width)"), ("height", "\(rendition.height)"), ("encoder", rendition.encoder)],
              "1 for each rendition of a camera, with its size and encoder.", 1)
        gauge("livepush_rendition_encoded_frames_per_second", labels, "Frames the rendition's encoder produces per second.", rendition.encodedFps)
        gauge("livepush_rendition_encoded_bytes_per_second", labels, "Rate the rendition's encoder produces, bytes per second.",
              rendition.bitrateBitsPerSecond / 8)
        gauge("livepush_rendition_target_bytes_per_second", labels, "Rate the rendition's encoder is asked for, bytes per second.",
              Double(rendition.encoderBitrateBitsPerSecond) / 8)
        gauge("livepush_rendition_queued_frames", labels, "Frames waiting for the rendition's encoder.", Double(rendition.queueDepth))
        total("livepush_rendition_encoded_frames_total", labels, "Frames the rendition's encoder produced.", Double(rendition.framesEncoded))
        total("livepush_rendition_dropped_frames_total", labels, "Frames the rendition's encoder queue dropped (its encoder was behind).",
              Double(rendition.droppedFrames))
        total("livepush_rendition_thinned_frames_total", labels, "Captured frames left out to bring the capture rate down to the rendition's.",
              Double(rendition.framesThinned))
        total("livepush_rendition_scaled_frames_total", labels, "Frames the rendition's encoder scaled (once for its siblings of the same size too).",
              Double(rendition.framesScaled))
        total("livepush_rendition_sibling_scaled_frames_total", labels, "Frames the rendition took already scaled by a sibling of the same size.",
              Double(rendition.framesScaledBySibling))
        total("livepush_rendition_uncopied_frames_total", labels, "Frames the rendition encoded from the captured buffer itself (no copy).",
              Double(rendition.framesAsCaptured))
    }

    /// libsrt's link statistics of an SRT output (``SRTLinkStatistics``).
    private func updateSRT(_ srt: SRTLinkStatistics, _ labels: [(String, String)]) {
        gauge("livepush_srt_send_buffer_seconds", labels, "Unacknowledged media in the SRT send buffer.", Double(srt.sendBufferMilliseconds) / 1000)
        gauge("livepush_srt_send_buffer_bytes", labels, "Unacknowledged bytes in the SRT send buffer.", Double(srt.sendBufferBytes))
        gauge("livepush_srt_latency_seconds", labels, "The SRT connection's agreed latency window.", Double(srt.latencyMilliseconds) / 1000)
        total("livepush_srt_lost_packets_total", labels, "SRT packets the receiver reported lost.", Double(srt.packetsLost))
        total("livepush_srt_retransmitted_packets_total", labels, "SRT packets sent again.", Double(srt.packetsRetransmitted))
        total("livepush_srt_too_late_dropped_packets_total", labels, "SRT packets dropped as too late for the latency window.",
              Double(srt.packetsDroppedTooLate))
        total("livepush_srt_acks_received_total", labels, "SRT ACK packets the receiver sent.", Double(srt.acknowledgementsReceived))
        total("livepush_srt_callers_rejected_total", labels, "SRT callers a listener refused (a wrong or missing passphrase).",
              Double(srt.callersRejected))
    }

    /// Our names are whole (unit suffix included), so the descriptor's unit part stays empty.
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    static let droppedHelp = "Frames dropped, by where: capture, encoder or an output."

    private func gauge(_ name: String, _ labels: [(String, String)], _ help: String, _ value: Double) {
        registry.makeGauge(descriptor: Self.descriptor(name, help), labels: labels).set(to: value)
    }

    /// Exports a running total from the status as a Prometheus counter: it grows by what the total
    /// grew since the last scrape. A total that went back (an output rebuilt on reload starts again at
    /// zero) adds what the new one counted, so the counter never decreases.
    private func total(_ name: String, _ labels: [(String, String)], _ help: String, _ value: Double) {
        let series = ([name] + labels.map { "\($0.0)=\($0.1)" }).joined(separator: "\u{1}")
        let growth = lastTotals.withLock { totals in
            defer { totals[series] = value }
            let previous = totals[series] ?? 0
            return value >= previous ? value - previous : value
        }
        let counter = registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels)
        if growth == growth.rounded(), growth < 9e15 { counter.increment(by: Int64(growth)) } else { counter.increment(by: growth) }
    }

    /// The exposition text.
    public func render() -> String { registry.emitToString() }
}
