import Engine
import Foundation
import Output

/// Turns the camera's status — the same ``Engine/CameraReport`` that `/api/status` and `/metrics`
/// serve — into the status line and the final summary.
struct StreamReport {
    let camera: CameraReport

    /// "record:/path", "rtmp:rtmp://host/app/***": what each output is, secrets masked.
    static func name(of output: OutputReport) -> String { "\(output.kind):\(output.target)" }

    func line(uptimeSeconds: Double) -> String {
        let outputs = camera.outputs.map { output in
            "\(Self.name(of: output)): \(output.state)\(output.health.map { " (\($0))" } ?? "") \(output.framesSent) sent \(output.droppedFrames) dropped"
        }
        return "encoded \(encodedCounts)  dropped capture \(camera.droppedFrames.capture) encoder \(camera.droppedFrames.encoder)  "
            + adaptation + outputs.joined(separator: "  ") + "  uptime \(Int(uptimeSeconds)) s"
    }

    /// CPU adaptation's rung and steps: "adapt 1280x720@60 down 1 up 0  ", or with several
    /// renditions each one's, top first ("adapt hd 1280x720@30 down 0 up 0, sd 480x270@30 down 1 up 0  "),
    /// since the renditions step in turn, the lowest-priority one first.
    private var adaptation: String {
        guard camera.renditions.count > 1 else {
            return camera.adaptation.map { "adapt \($0.rung) down \($0.stepsDown) up \($0.stepsUp)  " } ?? ""
        }
        let each = camera.renditions.compactMap { rendition in
            rendition.adaptation.map { "\(rendition.name) \($0.rung) down \($0.stepsDown) up \($0.stepsUp)" }
        }
        return each.isEmpty ? "" : "adapt " + each.joined(separator: ", ") + "  "
    }

    /// "120", or with several renditions each one's count ("hd 120 sd 120 low 60"): the camera's
    /// own count is its top rendition's.
    private var encodedCounts: String {
        guard camera.renditions.count > 1 else { return "\(camera.framesEncoded)" }
        return camera.renditions.map { "\($0.name) \($0.framesEncoded)" }.joined(separator: " ")
    }

    /// Each output's state and delivery health ("rtmp:…=running/healthy"), and CPU adaptation's
    /// rung (each rendition's): a change is worth a status line of its own.
    var states: String {
        let rungs = camera.renditions.count > 1
            ? camera.renditions.compactMap { rendition in rendition.adaptation.map { " adapt:\(rendition.name)=\($0.rung)" } }.joined()
            : camera.adaptation.map { " adapt=\($0.rung)" } ?? ""
        return camera.outputs.map { "\(Self.name(of: $0))=\($0.state)\($0.health.map { "/\($0)" } ?? "")" }.joined(separator: " ") + rungs
    }

    /// An SRT output's link figures, one line (tests and scripts read it).
    static func describe(_ srt: SRTLinkStatistics) -> String {
        "srt: rtt \(String(format: "%.1f", srt.rttMilliseconds)) ms, send buffer \(srt.sendBufferMilliseconds) ms (\(srt.sendBufferBytes) bytes) of "
            + "\(srt.latencyMilliseconds) ms latency, \(srt.packetsSent) packets sent, \(srt.packetsLost) lost, \(srt.packetsRetransmitted) retransmitted, "
            + "\(srt.packetsDroppedTooLate) dropped too late, \(srt.acknowledgementsReceived) ACKs"
    }

    /// "cpu adaptation: at 1280x720@60 (rung 1 of 3), 1 steps down, 0 up, 0 frames thinned": the
    /// camera's in the summary, and each rendition's at the end of its line.
    static func describe(_ adaptation: AdaptationReport) -> String {
        "cpu adaptation: at \(adaptation.rung) (rung \(adaptation.rungIndex) of \(adaptation.rungCount - 1)), \(adaptation.stepsDown) steps down, "
            + "\(adaptation.stepsUp) up, \(adaptation.thinnedFrames) frames thinned"
    }

    var summary: String {
        let encoded = camera.renditions.count > 1
            ? "\(camera.renditions.count) renditions encoded \(camera.renditions.reduce(0) { $0 + $1.framesEncoded }) frames together (each below)"
            : "encoded \(camera.framesEncoded) frames"
        let encoders = camera.renditions.count > 1 ? "the encoders" : "the encoder"
        var lines = ["livepush: stopped; \(encoded), dropped \(camera.droppedFrames.capture) at capture and \(camera.droppedFrames.encoder) at \(encoders)"]
        if camera.encoderBitrateChanges > 0 {
            lines.append("  encoder bitrate: \(camera.encoderBitrateBitsPerSecond / 1000) kbit/s at the end, lowest \(camera.lowestEncoderBitrateBitsPerSecond / 1000) kbit/s, \(camera.encoderBitrateChanges) changes")
        }
        if let adaptation = camera.adaptation {
            lines.append("  " + Self.describe(adaptation) + (adaptation.lastReason.map { "; last: \($0)" } ?? ""))
        }
        if camera.renditions.count > 1 {
            for rendition in camera.renditions {
                lines.append("  rendition \(rendition.name) \(rendition.width)x\(rendition.height): \(rendition.framesEncoded) frames encoded, "
                             + "\(rendition.droppedFrames) dropped at its encoder, \(rendition.framesThinned) thinned, "
                             + "\(rendition.framesScaled) scaled, \(rendition.framesScaledBySibling) taken scaled from a sibling, "
                             + "\(rendition.framesAsCaptured) uncopied; outputs \(rendition.outputs.isEmpty ? "none" : rendition.outputs.joined(separator: ", "))"
                             + (rendition.adaptation.map { "; " + Self.describe($0) } ?? ""))
            }
        }
        for output in camera.outputs {
            lines.append("  \(Self.name(of: output)): \(output.state), \(output.framesSent) frames, \(output.bytesSent) bytes, \(output.droppedFrames) dropped"
                         + (output.droppedFramesAtSocket > 0 ? " (\(output.droppedFrames - output.droppedFramesAtSocket) at the hand-off queue, \(output.droppedFramesAtSocket) at the socket)" : "")
                         + ", \(output.reconnects) reconnects"
                         + (output.framesHeldForKeyFrame > 0 ? ", \(output.framesHeldForKeyFrame) held for a key frame" : "")
                         + (output.lastError.map { ", last error: \($0)" } ?? ""))
            if let delivery = output.delivery { lines.append("    \(delivery.summary)") }
            if let srt = output.srt { lines.append("    " + Self.describe(srt)) }
            // A recording that went on in more files (segments, a size change) names them all.
            if let files = output.files, files.count > 1 { lines.append("    files: " + files.joined(separator: ", ")) }
        }
        return lines.joined(separator: "\n")
    }
}
