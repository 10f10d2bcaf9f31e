extension WHEPService {
    /// What the viewers got: frames broadcast, packets, NACKs and retransmissions, REMB and the
    /// encoder bitrate it led to, transport-cc feedback and the last viewer estimate, and the
    /// rotation sent as metadata (tests and the bench read it).
    public var runReport: String? {
        let latest = whepStatistics
        let totals = latest.totals
        var line = "whep: \(latest.framesBroadcast) frames, \(latest.audioFramesBroadcast) audio frames broadcast"
        line += "; to viewers \(totals.videoPacketsSent) video, \(totals.audioPacketsSent) audio packets"
        line += ", \(totals.nacksReceived) NACKs, \(totals.packetsRetransmitted) retransmitted (\(totals.rtxPacketsSent) on RTX)"
        line += "; REMB \(latest.rembReceived), encoder bitrate \(latest.encoderBitrateBitsPerSecond.map(String.init) ?? "fixed") after \(latest.bitrateChanges) changes (lowest \(latest.lowestEncoderBitrateBitsPerSecond.map(String.init) ?? "-"))"
        line += "; transport-cc feedback \(totals.transportFeedbackReceived) (\(totals.transportOutages) outages), last estimate "
            + (latest.lastViewerEstimate.map { "\($0.bitsPerSecond) (\($0.source))" } ?? "none")
        line += "; frame rotation \(latest.lastFrameRotationDegrees)° sent as metadata"
        line += "; \(latest.viewersClosedStalled) viewers closed as stalled"
        return line
    }
}
