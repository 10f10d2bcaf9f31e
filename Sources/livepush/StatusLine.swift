#if canImport(Glibc)
import Glibc
#endif

/// One live status line on a terminal (rewritten in place), or plain log lines when not a terminal.
struct StatusLine {
    let isTerminal = isatty(STDOUT_FILENO) != 0

    func show(_ text: String) {
        if isTerminal {
            print("\r\u{1B}[2K" + text, terminator: "")
            fflush(nil)
        } else {
            print(text)
        }
    }

    func finish() {
        if isTerminal { print("") }
    }
}
