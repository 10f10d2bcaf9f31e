import CProcess

/// What a long-lived worker thread is called where people look for it: `top -H`, `ps -L` and
/// /proc/PID/task/TID/comm, and the benchmarks that add up CPU per thread name. A role and what it
/// works for, "enc:720p", "cap:door", "mic:door", so a busy thread says which camera or rendition
/// it serves instead of showing as `livepush`.
///
/// Linux keeps 15 bytes of a name and refuses a longer one (the thread then keeps the process's),
/// so the name is cut to 15 bytes here, between characters: a cut inside a multibyte character
/// would leave bytes that are not UTF-8.
public struct ThreadName: Sendable, Equatable, CustomStringConvertible {
    /// The bytes Linux keeps of a thread name (16 with the terminating NUL).
    public static let limitBytes = 15

    /// The name as the kernel will show it: at most ``limitBytes`` bytes of UTF-8.
    public let description: String

    /// `name`, cut to ``limitBytes`` bytes.
    public init(_ name: String) {
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in name.unicodeScalars where scalar != "\0" {
            let size = String(scalar).utf8.count
            guard bytes + size <= Self.limitBytes else { break }
            kept.append(scalar)
            bytes += size
        }
        description = String(kept)
    }

    /// "role:subject" ("mic:door"), cut to ``limitBytes`` bytes: the role survives, a long subject loses its end.
    public init(role: String, for subject: String) {
        self.init(subject.isEmpty ? role : "\(role):\(subject)")
    }

    /// Names the calling thread. Foundation's `Thread.name` reaches the kernel only sometimes on
    /// Linux (it races with the thread's start), so a thread calls this first thing in its body.
    public func applyToCurrentThread() {
        _ = lp_name_current_thread(description)
    }
}
