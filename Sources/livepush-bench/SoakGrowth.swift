/// Resident-set growth over a soak once it has settled (from the first sample at or after
/// `settleSeconds`: five minutes, or half the run when it is shorter, so a short proving run still
/// reports).
///
/// The verdict is the trend: a least-squares line through every settled sample, and how far it
/// rises from the settle point to the last sample. Single samples swing by more than the 2 % goal
/// with what the run is doing at that minute (a second WHEP viewer attached or not moves RssAnon by
/// ~1.4 MiB of ~48; a release of file pages just before a sample or just after it moves RSS by a
/// few MiB), so a sample-against-sample figure measures which minute the samples fell on, not
/// creep; a line through 55 samples averages those swings out and still rises with a leak. The
/// sample at the settle point against the last and against the highest after it are reported
/// beside it, as they were the verdict before.
struct SoakGrowth: Equatable {
    static let goalPercent = 2.0
    static let settleSeconds = 300.0

    var settledAt: Double
    var lastAt: Double
    var settledKiB: Int
    var lastKiB: Int
    var highestKiB: Int
    /// The fitted line's values at `settledAt` and at `lastAt`, in KiB.
    var trendStartKiB: Double
    var trendEndKiB: Double

    /// nil when no sample falls after the settle point.
    init?(samples: [(elapsed: Double, kib: Int)], runSeconds: Double) {
        let settle = min(Self.settleSeconds, runSeconds / 2)
        let after = samples.filter { $0.elapsed >= settle }
        guard let first = after.first, let last = after.last else { return nil }
        settledAt = first.elapsed
        lastAt = last.elapsed
        settledKiB = first.kib
        lastKiB = last.kib
        highestKiB = after.map(\.kib).max() ?? last.kib
        let line = Self.leastSquaresLine(after.map { ($0.elapsed, Double($0.kib)) })
        trendStartKiB = line.intercept + line.slope * first.elapsed
        trendEndKiB = line.intercept + line.slope * last.elapsed
    }

    var trendPercent: Double { trendStartKiB > 0 ? 100 * (trendEndKiB - trendStartKiB) / trendStartKiB : 0 }
    var lastPercent: Double { Self.percent(Double(lastKiB), over: Double(settledKiB)) }
    var highestPercent: Double { Self.percent(Double(highestKiB), over: Double(settledKiB)) }
    var met: Bool { trendPercent < Self.goalPercent }

    /// "trend +0.3 % (48.6 → 48.7 MiB, 300–3600 s; goal < 2 %: met); sample at 300 s → last +0.4 %,
    /// → highest +2.9 % (48.5 → 48.7, highest 49.9 MiB)".
    var description: String {
        func mib(_ kib: Double) -> String { String(format: "%.1f", kib / 1024) }
        return String(format: "trend %+.1f %%", trendPercent)
            + " (\(mib(trendStartKiB)) → \(mib(trendEndKiB)) MiB, \(Int(settledAt))–\(Int(lastAt)) s; goal < \(Self.goalPercent) %: \(met ? "met" : "not met")); "
            + String(format: "sample at %d s → last %+.1f %%, → highest %+.1f %%", Int(settledAt), lastPercent, highestPercent)
            + " (\(mib(Double(settledKiB))) → \(mib(Double(lastKiB))), highest \(mib(Double(highestKiB))) MiB)"
    }

    /// The line y = intercept + slope × x closest to the points in the least-squares sense; a flat
    /// line through the mean when every point has the same x (a single sample).
    static func leastSquaresLine(_ points: [(x: Double, y: Double)]) -> (intercept: Double, slope: Double) {
        let count = Double(points.count)
        guard count > 0 else { return (0, 0) }
        let meanX = points.map(\.x).reduce(0, +) / count
        let meanY = points.map(\.y).reduce(0, +) / count
        let spread = points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        guard spread > 0 else { return (meanY, 0) }
        let slope = points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / spread
        return (meanY - slope * meanX, slope)
    }

    private static func percent(_ value: Double, over base: Double) -> Double { base > 0 ? 100 * (value - base) / base : 0 }
}
