import Foundation

/// The committed peak resident set of livepush on each ``StandardJob`` (bench/rss-baseline.json),
/// and the check `make bench-check` runs against it, so that memory a change adds is noticed:
///
///     livepush-bench --only rss-check [--rounds 3] [--baseline bench/rss-baseline.json]
///     livepush-bench --only rss-baseline   # measures and rewrites the file
///
/// Each job's figure is the median peak RSS (VmHWM) of `rounds` runs. A change that moves a figure
/// on purpose rewrites the file and says why in its note.
struct RSSBaseline: Codable, Equatable {
    /// Growth over the baseline a check lets pass, in percent.
    var tolerancePercent: Double
    /// Where and how the figures were taken, and why they last changed.
    var note: String
    /// Median peak RSS in KiB, by ``StandardJob`` raw value.
    var peakRSSKiB: [String: Int]

    /// A job whose median peak grew past the tolerance.
    struct Growth: Equatable {
        var job: String
        var baselineKiB: Int
        var measuredKiB: Int

        var percent: Double { 100 * Double(measuredKiB - baselineKiB) / Double(baselineKiB) }

        var description: String {
            "\(job): peak RSS \(RSSBaseline.mebibytes(measuredKiB)) is \(String(format: "%.1f", percent)) % above the baseline's \(RSSBaseline.mebibytes(baselineKiB))"
        }
    }

    /// The jobs in `measured` that grew by more than ``tolerancePercent``, and the jobs the
    /// baseline has no figure for (named apart: growth from nothing has no percentage).
    func check(_ measured: [String: Int]) -> (grown: [Growth], unknown: [String]) {
        var grown: [Growth] = [], unknown: [String] = []
        for (job, kib) in measured.sorted(by: { $0.key < $1.key }) {
            guard let baseline = peakRSSKiB[job], baseline > 0 else { unknown.append(job); continue }
            let growth = Growth(job: job, baselineKiB: baseline, measuredKiB: kib)
            if growth.percent > tolerancePercent { grown.append(growth) }
        }
        return (grown, unknown)
    }

    static func mebibytes(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

    static func load(_ path: String) throws -> RSSBaseline {
        try JSONDecoder().decode(RSSBaseline.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try (encoder.encode(self) + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
    }

    /// livepush's median peak RSS on every standard job over `rounds` runs each, the jobs alternating.
    static func measure(rounds: Int) throws -> [String: Int] {
        let workspace = try StandardJob.Workspace()
        var peaks = [String: [Int]]()
        for round in 0..<rounds {
            for job in StandardJob.allCases {
                let command = try job.command(.livepush, run: "livepush-\(round)", in: workspace)
                peaks[job.rawValue, default: []].append(try PeersBenchmark.measure(command).peakRSSKiB)
            }
        }
        return peaks.mapValues(PeersBenchmark.median)
    }
}
