import ArgumentParser
import Capture
import Engine
import Foundation
import LibAV
import MediaCore

/// `livepush run`: captures the source and shows a live status line, checking the burned-in frame
/// code of the test pattern as it goes (no encoding, no outputs). The default command is `serve`.
///
/// It captures as `stream` and `serve` do (``SourceOptions/makeCapturer(noSignal:)``): a camera
/// that is missing at start, unplugged or stalled shows the no-signal card, counted as frames and
/// flagged on the status line (`noSignal` in `--json-events`), until it can be opened again.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Capture a source and show live status (no encoding or outputs).")

    @OptionGroup var sourceOptions: SourceOptions

    @Option(help: "Stop after this many seconds (default: until Ctrl-C or SIGTERM).")
    var duration: Double?

    @Option(help: "Write a snapshot of the latest frame here every few seconds (.jpg or .png).")
    var snapshot: String?

    @Flag(help: "Print capture events and status as JSON lines (for scripts and monitoring).")
    var jsonEvents = false

    @Option(help: "Switch to this camera while running (the 'switch camera' button), after --switch-after seconds.")
    var switchTo: String?

    @Option(help: "Seconds after start at which --switch-to happens.")
    var switchAfter: Double = 5

    func run() async throws {
        FFmpegLogging.quiet()
        let capturer = try sourceOptions.makeCapturer(noSignal: .showCard)
        let switchTarget = try switchTo.map { target in try CameraSwitch(capturer: capturer, to: target, stallTimeoutSeconds: sourceOptions.stallTimeout) }
        let monitor = FrameMonitor()
        let check = FrameOrderCheck(forwardingTo: monitor)
        let log = jsonEvents ? RunEventLog(capturer: capturer) : nil
        let format = try await capturer.start(sink: check)
        if log == nil { print("livepush: capturing \(capturer.name) at \(format); press Ctrl-C to stop") }
        var status = StatusLine()
        // Ctrl-C or SIGTERM ends the loop like --duration does, and so does a file's end: the
        // device is stopped and released.
        let stops = SignalWatcher(SIGINT, SIGTERM)
        let started = MonotonicClock.nowNanos()
        var lastSnapshot = started
        while stops.received == 0, !monitor.sourceEnded, duration.map({ Double(MonotonicClock.nowNanos() - started) / 1e9 < $0 }) ?? true {
            try await Task.sleep(for: .milliseconds(500))
            let stats = monitor.stats
            let uptime = Double(MonotonicClock.nowNanos() - started) / 1e9
            if let switchTarget, uptime >= switchAfter, switchTarget.perform(), log != nil {
                RunEventLog.write(["event": "switch", "to": switchTarget.targetSelector])
            }
            if let log {
                log.status(check.current, dropped: capturer.droppedFrames, framesPerSecond: stats.framesPerSecond, uptimeSeconds: uptime,
                           noSignal: capturer.isShowingPlaceholder)
            } else {
                status.show((capturer.isShowingPlaceholder ? "NO SIGNAL  " : "") + "frames \(stats.frames)  fps \(String(format: "%.1f", stats.framesPerSecond))  "
                            + "dropped \(capturer.droppedFrames)  code \(stats.lastCode.map { "#\($0.frameNumber)" } ?? "-")  "
                            + "uptime \(Int(uptime)) s")
            }
            if let snapshot, MonotonicClock.nowNanos() - lastSnapshot > 5_000_000_000, let frame = monitor.latest {
                try ImageFileWriter.write(frame.buffer, to: snapshot)
                lastSnapshot = MonotonicClock.nowNanos()
            }
        }
        await capturer.stop()
        status.finish()
    }
}
