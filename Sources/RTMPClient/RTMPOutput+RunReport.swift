import Foundation

extension RTMPOutput {
    /// Drops by kind and capture → socket latency, e.g. "rtmp:…: dropped 0 non-reference, 12 by
    /// GOP, 0 audio; send latency p50 3.1 ms p99 9.8 ms" (the RTMP benchmark reads this line).
    public var runReport: String? {
        let drops = self.drops
        var line = "\(name): dropped \(drops.nonReference) non-reference, \(drops.reference + drops.key) by GOP, \(drops.audio) audio"
        if let latency = sendLatencyNanos {
            line += String(format: "; send latency p50 %.1f ms p99 %.1f ms", Double(latency.p50) / 1e6, Double(latency.p99) / 1e6)
        }
        return line
    }
}
