import Capture
import Foundation

/// `livepush run --json-events`: capture events and periodic status as one JSON object per line
/// on stdout, for scripts, monitoring and the V4L2 tests (which parse it).
final class RunEventLog: Sendable {
    private let events: Task<Void, Never>

    /// Starts printing the capturer's events (started, error, stopped) as they come.
    init(capturer: any VideoCapturer) {
        let stream = capturer.events
        events = Task {
            for await event in stream { RunEventLog.write(RunEventLog.fields(for: event)) }
        }
    }

    deinit { events.cancel() }

    static func fields(for event: CaptureEvent) -> [String: Any] {
        switch event {
        case let .started(format):
            return ["event": "started", "width": format.size.width, "height": format.size.height, "fps": format.framesPerSecond,
                    "pixelFormat": format.pixelFormat.rawValue, "notes": format.notes, "format": format.description]
        case let .error(error):
            // the case name (deviceUnplugged, stalled, …) is stable for scripts; the message is for people
            return ["event": "error", "kind": Mirror(reflecting: error).children.first?.label ?? "\(error)", "message": error.description]
        case .stopped:
            return ["event": "stopped"]
        }
    }

    /// One status line: counts from the order check plus the capturer's drop counter; `noSignal`
    /// while the no-signal card stands in for the camera (its cards are counted as frames).
    func status(_ counts: FrameOrderCheck.Counts, dropped: Int, framesPerSecond: Double, uptimeSeconds: Double, noSignal: Bool) {
        var fields: [String: Any] = ["event": "status", "frames": counts.frames, "dropped": dropped, "fps": framesPerSecond, "noSignal": noSignal,
                                     "timestampRegressions": counts.timestampRegressions, "codesRead": counts.codesRead,
                                     "codeMismatches": counts.codeMismatches, "width": counts.width, "height": counts.height,
                                     "uptimeSeconds": uptimeSeconds]
        if let number = counts.lastFrameNumber { fields["lastFrameNumber"] = number }
        if let time = counts.lastCaptureTimeNanos { fields["lastCaptureTimeNanos"] = time }
        Self.write(fields)
    }

    static func write(_ fields: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        print(String(decoding: data, as: UTF8.self))
        fflush(nil)
    }
}
