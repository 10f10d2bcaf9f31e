/// A private, read-only mapping of a file (code, or the read-only data and tables the dynamic
/// loader reads at start-up) all of whose pages are still clean copies of the file.
///
/// Only such a mapping can be dropped from memory without losing anything: the pages come back
/// from the page cache on the next touch. A read-only mapping that holds even one private page
/// (data relocated at load time and then write-protected, a debugger's breakpoint) or one page in
/// swap is never a candidate: dropping it would throw that page away.
struct CleanFileMapping: Equatable {
    var start: UInt
    var end: UInt

    var length: Int { Int(end - start) }

    /// The candidates in the text of /proc/PID/smaps; anything unreadable is skipped, never guessed.
    static func parse(smaps: String) -> [CleanFileMapping] {
        var found: [CleanFileMapping] = []
        var current: Candidate?
        func finish() {
            if let candidate = current, candidate.isClean { found.append(candidate.mapping) }
            current = nil
        }
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            if let header = Candidate(header: line) {
                finish()
                current = header
            } else if Self.bounds(of: line) != nil {
                finish()  // the header of a mapping that is not a candidate
            } else if current != nil {
                current?.read(field: line)
            }
        }
        finish()
        return found
    }

    /// The address range a mapping's header line starts with ("7f3a…-7f3b… r-xp …"); nil for a field line.
    private static func bounds(of line: Substring) -> (UInt, UInt)? {
        let range = line.prefix { $0 != " " }.split(separator: "-")
        guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16), end > start else { return nil }
        return (start, end)
    }

    /// A header line that could be a candidate, and what its field lines said so far.
    private struct Candidate {
        var mapping: CleanFileMapping
        var anonymousKiB: Int?
        var swapKiB: Int?

        /// "start-end perms offset dev inode /path": read-only (executable or not), private, a file.
        init?(header line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp" || fields[1] == "r--p", fields[4] != "0",
                  fields[5].drop(while: { $0 == " " }).hasPrefix("/") else { return nil }
            guard let (start, end) = CleanFileMapping.bounds(of: line) else { return nil }
            mapping = CleanFileMapping(start: start, end: end)
        }

        mutating func read(field line: Substring) {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 3, parts[2] == "kB", let kib = Int(parts[1]) else { return }
            switch parts[0] {
            case "Anonymous:": anonymousKiB = kib
            case "Swap:": swapKiB = kib
            default: break
            }
        }

        /// Both counts must have been read and be zero: a missing line is not taken for a zero.
        var isClean: Bool { anonymousKiB == 0 && swapKiB == 0 }
    }
}
