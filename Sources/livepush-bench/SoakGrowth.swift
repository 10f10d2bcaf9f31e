/// Resident-set growth over a soak once it has settled: the first sample at or after
/// `settleSeconds` (five minutes, or half the run when it is shorter, so a short proving run still
/// reports) against the last sample, and against the highest sample after that point. Both are
/// reported; the issue's goal is growth under ``goalPercent``.
struct SoakGrowth: Equatable {
    static let goalPercent = 2.0
    static let settleSeconds = 300.0

    var settledAt: Double
    var settledKiB: Int
    var lastKiB: Int
    var highestKiB: Int

    /// nil when no sample falls after the settle point.
    init?(samples: [(elapsed: Double, kib: Int)], runSeconds: Double) {
        let settle = min(Self.settleSeconds, runSeconds / 2)
        let after = samples.filter { $0.elapsed >= settle }
        guard let first = after.first, let last = after.last else { return nil }
        settledAt = first.elapsed
        settledKiB = first.kib
        lastKiB = last.kib
        highestKiB = after.map(\.kib).max() ?? last.kib
    }

    var lastPercent: Double { Self.percent(lastKiB, over: settledKiB) }
    var highestPercent: Double { Self.percent(highestKiB, over: settledKiB) }

    /// "+0.4 % last, +1.1 % highest (48.2 at 300 s → 48.4, highest 48.7 MiB; goal < 2 %: met)".
    var description: String {
        func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
        let met = lastPercent < Self.goalPercent && highestPercent < Self.goalPercent
        return String(format: "%+.1f %% last, %+.1f %% highest", lastPercent, highestPercent)
            + " (\(mib(settledKiB)) at \(Int(settledAt)) s → \(mib(lastKiB)), highest \(mib(highestKiB)) MiB; goal < \(Self.goalPercent) %: \(met ? "met" : "not met"))"
    }

    private static func percent(_ value: Int, over base: Int) -> Double { base > 0 ? 100 * Double(value - base) / Double(base) : 0 }
}
