import Engine
import Pipeline

/// Turns a running camera's counters into the status line and the final summary.
struct StreamReport {
    let status: StreamPipeline.Status
    /// Each output's name (its destination, secrets masked) and status.
    let outputs: [(name: String, status: OutputStatus)]

    init(runtime: CameraRuntime) {
        status = runtime.pipelineStatus
        outputs = runtime.outputs.map { ($0.lastOutput?.name ?? $0.target, $0.status) }
    }

    func line(uptimeSeconds: Double) -> String {
        let outputs = outputs.map { "\($0.name): \($0.status.state.rawValue) \($0.status.framesSent) sent \($0.status.framesDropped) dropped" }
        return "encoded \(status.encoder.encoded)  dropped capture \(status.captureDropped) encoder \(status.encoder.dropped)  "
            + outputs.joined(separator: "  ") + "  uptime \(Int(uptimeSeconds)) s"
    }

    /// Each output's state ("rtmp:…=publishing"): a change is worth a status line of its own.
    var states: String {
        outputs.map { "\($0.name)=\($0.status.state.rawValue)" }.joined(separator: " ")
    }

    var summary: String {
        var lines = ["livepush: stopped; encoded \(status.encoder.encoded) frames, dropped \(status.captureDropped) at capture and \(status.encoder.dropped) at the encoder"]
        let bitrate = status.bitrate
        if bitrate.changes > 0 {
            lines.append("  encoder bitrate: \(bitrate.bitsPerSecond / 1000) kbit/s at the end, lowest \(bitrate.lowestBitsPerSecond / 1000) kbit/s, \(bitrate.changes) changes")
        }
        for (name, output) in outputs {
            lines.append("  \(name): \(output.state.rawValue), \(output.framesSent) frames, \(output.bytesSent) bytes, \(output.framesDropped) dropped"
                         + (output.framesDroppedAtSocket > 0 ? " (\(output.framesDropped - output.framesDroppedAtSocket) at the hand-off queue, \(output.framesDroppedAtSocket) at the socket)" : "")
                         + ", \(output.reconnects) reconnects"
                         + (output.framesHeldForKeyFrame > 0 ? ", \(output.framesHeldForKeyFrame) held for a key frame" : "")
                         + (output.lastError.map { ", last error: \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
