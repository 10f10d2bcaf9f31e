import Foundation

/// livepush, ffmpeg and GStreamer on the ``StandardJob``s, one process at a time, the tools
/// alternating within each round so that a slow spell of the machine falls on all of them alike:
///
///     livepush-bench --only peers [--rounds 3]
///
/// Each figure is the median over the rounds (the range beside it) of the whole process: user +
/// system CPU seconds (RUSAGE_CHILDREN deltas), peak resident set (VmHWM, sampled every 100 ms),
/// and the bytes it wrote (or nginx recorded), which show that the tools did the same work.
struct PeersBenchmark {
    var rounds: Int

    /// The runs of one tool on one job.
    struct Runs {
        var cpuSeconds: [Double] = []
        var peakRSSKiB: [Int] = []
        var outputBytes: [Int] = []
    }

    func run() throws -> BenchTable {
        let workspace = try StandardJob.Workspace()
        var table = BenchTable(title: "The standard jobs (10 s raw YUYV 720p30 testsrc2, x264 veryfast/zerolatency, keyframe every 2 s, real time), "
                                   + "median of \(rounds) alternating runs, whole process",
                               columns: ["job", "tool", "output bytes", "CPU s (user+sys)", "peak RSS MiB"])
        var commands: [String] = []
        for job in StandardJob.allCases {
            var runs = [StandardJob.Tool: Runs]()
            for round in 0..<rounds {
                for tool in StandardJob.Tool.allCases {
                    let command = try job.command(tool, run: "\(tool.rawValue)-\(round)", in: workspace)
                    if round == 0 { commands.append("- \(job.rawValue), \(tool.rawValue): `\(StandardJob.shellText(command))`") }
                    let measured = try Self.measure(command)
                    runs[tool, default: Runs()].cpuSeconds.append(measured.cpuSeconds)
                    runs[tool, default: Runs()].peakRSSKiB.append(measured.peakRSSKiB)
                    runs[tool, default: Runs()].outputBytes.append(measured.outputBytes)
                }
            }
            for tool in StandardJob.Tool.allCases {
                guard let run = runs[tool] else { continue }
                table.rows.append([job.rawValue, tool.rawValue, "\(Self.median(run.outputBytes))",
                                   Self.medianAndRange(run.cpuSeconds) { String(format: "%.2f", $0) },
                                   Self.medianAndRange(run.peakRSSKiB.map { Double($0) / 1024 }) { String(format: "%.1f", $0) }])
            }
        }
        print("Commands (the output names differ per run):\n" + commands.joined(separator: "\n") + "\n")
        return table
    }

    /// One run to its end: CPU seconds, peak RSS, and the bytes it produced.
    static func measure(_ command: StandardJob.Command) throws -> (cpuSeconds: Double, peakRSSKiB: Int, outputBytes: Int) {
        let measured = try BenchProcesses.measure([(command.executable, command.arguments)], seconds: StandardJob.seconds, frames: 1)
        return (measured.cpuPerFrame, measured.peakRSSKiB, command.outputBytes())
    }

    static func median<Value: Comparable>(_ values: [Value]) -> Value { values.sorted()[values.count / 2] }

    static func medianAndRange(_ values: [Double], _ format: (Double) -> String) -> String {
        let sorted = values.sorted()
        return "\(format(median(sorted))) (\(format(sorted.first ?? 0))–\(format(sorted.last ?? 0)))"
    }
}
