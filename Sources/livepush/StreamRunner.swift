import Foundation
import MediaCore
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a pipeline running with a live status line until the duration passes or SIGINT/SIGTERM
/// arrives, then stops it cleanly (last frames flushed, recordings finalized).
struct StreamRunner {
    let pipeline: StreamPipeline

    func runUntilStopped(afterSeconds limit: Double?) async {
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
        var status = StatusLine()
        let started = MonotonicClock.nowNanos()
        while !signals.received {
            let elapsed = Double(MonotonicClock.nowNanos() - started) / 1e9
            if let limit, elapsed >= limit { break }
            try? await Task.sleep(for: .milliseconds(250))
            let report = StreamReport(status: pipeline.status)
            status.show(report.line(uptimeSeconds: elapsed), state: report.states)
        }
        status.finish()
        await pipeline.stop()
    }
}

/// Turns pipeline status into the status line and the final summary.
struct StreamReport {
    let status: StreamPipeline.Status

    func line(uptimeSeconds: Double) -> String {
        let outputs = status.outputs.map { "\($0.name): \($0.status.state.rawValue) \($0.status.framesSent) sent \($0.status.framesDropped) dropped" }
        return "encoded \(status.encoder.encoded)  dropped capture \(status.captureDropped) encoder \(status.encoder.dropped)  "
            + outputs.joined(separator: "  ") + "  uptime \(Int(uptimeSeconds)) s"
    }

    /// Each output's state ("rtmp:…=publishing"): a change is worth a status line of its own.
    var states: String {
        status.outputs.map { "\($0.name)=\($0.status.state.rawValue)" }.joined(separator: " ")
    }

    var summary: String {
        var lines = ["livepush: stopped; encoded \(status.encoder.encoded) frames, dropped \(status.captureDropped) at capture and \(status.encoder.dropped) at the encoder"]
        let bitrate = status.bitrate
        if bitrate.changes > 0 {
            lines.append("  encoder bitrate: \(bitrate.bitsPerSecond / 1000) kbit/s at the end, lowest \(bitrate.lowestBitsPerSecond / 1000) kbit/s, \(bitrate.changes) changes")
        }
        for (name, output) in status.outputs {
            lines.append("  \(name): \(output.state.rawValue), \(output.framesSent) frames, \(output.bytesSent) bytes, \(output.framesDropped) dropped"
                         + (output.framesDroppedAtSocket > 0 ? " (\(output.framesDropped - output.framesDroppedAtSocket) at the hand-off queue, \(output.framesDroppedAtSocket) at the socket)" : "")
                         + ", \(output.reconnects) reconnects"
                         + (output.framesHeldForKeyFrame > 0 ? ", \(output.framesHeldForKeyFrame) held for a key frame" : "")
                         + (output.lastError.map { ", last error: \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
