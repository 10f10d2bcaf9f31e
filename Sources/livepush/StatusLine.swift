import MediaCore
#if canImport(Glibc)
import Glibc
#endif

/// The live status: one line rewritten in place on a terminal; off a terminal (systemd's journal, a
/// pipe) a plain line every ``quietIntervalNanos`` or when the state changes, so a log is not
/// flooded with four lines a second.
struct StatusLine {
    static let quietIntervalNanos: Int64 = 10_000_000_000
    let isTerminal = isatty(STDOUT_FILENO) != 0
    private var lastPrintedNanos: Int64?
    private var lastState: String?

    /// - Parameters:
    ///   - text: the whole line.
    ///   - state: what counts as a change worth a line of its own off a terminal (outputs' states);
    ///     counters that move every frame do not belong in it.
    mutating func show(_ text: String, state: String = "") {
        if isTerminal {
            print("\r\u{1B}[2K" + text, terminator: "")
            fflush(nil)
            return
        }
        let now = MonotonicClock.nowNanos()
        if let lastPrintedNanos, state == lastState, now - lastPrintedNanos < Self.quietIntervalNanos { return }
        print(text)
        fflush(nil)
        lastPrintedNanos = now
        lastState = state
    }

    func finish() {
        if isTerminal { print("") }
    }
}
