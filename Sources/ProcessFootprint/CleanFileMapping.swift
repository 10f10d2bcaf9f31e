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

    static func parse(smaps text: String) -> [CleanFileMapping] { parse(smaps: Array(text.utf8)) }

    /// Calls `body` with each part of `mappings` that lies inside `segment` (a loaded object's
    /// read-only segment): only those may be dropped (see ``ProcessFootprint``). `mappings` must be
    /// sorted by address and not overlap, as smaps lists them. Allocates nothing: it runs under the
    /// dynamic loader's lock.
    static func forEachPart(of mappings: [CleanFileMapping], within segment: CleanFileMapping,
                            _ body: (CleanFileMapping) -> Void) {
        var low = 0, high = mappings.count
        while low < high {
            let middle = (low + high) / 2
            if mappings[middle].end <= segment.start { low = middle + 1 } else { high = middle }
        }
        var index = low
        while index < mappings.count, mappings[index].start < segment.end {
            body(CleanFileMapping(start: max(segment.start, mappings[index].start), end: min(segment.end, mappings[index].end)))
            index += 1
        }
    }

    /// The candidates in the bytes of /proc/PID/smaps; anything unreadable is skipped, never guessed.
    static func parse(smaps bytes: [UInt8]) -> [CleanFileMapping] {
        var scanner = Scanner()
        bytes.withUnsafeBufferPointer { all in
            var lineStart = 0
            while lineStart < all.count {
                var lineEnd = lineStart
                while lineEnd < all.count, all[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                scanner.scan(line: all[lineStart..<lineEnd])
                lineStart = lineEnd + 1
            }
        }
        return scanner.finish()
    }

    /// Finds the candidates one smaps line at a time, so the text can be read through one small
    /// buffer (``ProcessFootprint``): a whole copy of it (half a megabyte for ~900 mappings, twice
    /// that while an array grows) came on top of the resident set at every release. Works on bytes,
    /// without allocating per line: splitting the text into Swift strings took 100 ms a release.
    struct Scanner {
        private var found: [CleanFileMapping] = []
        private var candidate: (mapping: CleanFileMapping, anonymousKiB: Int?, swapKiB: Int?)?

        mutating func scan(line: Line) {
            if let header = Header(line) {
                finishCandidate()
                if header.isCandidate { candidate = (CleanFileMapping(start: header.start, end: header.end), nil, nil) }
            } else if candidate != nil {
                if let kib = CleanFileMapping.kibibytes(named: "Anonymous:", in: line) {
                    candidate?.anonymousKiB = kib
                } else if let kib = CleanFileMapping.kibibytes(named: "Swap:", in: line) {
                    candidate?.swapKiB = kib
                }
            }
        }

        /// The candidates, once every line was scanned.
        mutating func finish() -> [CleanFileMapping] {
            finishCandidate()
            return found
        }

        private mutating func finishCandidate() {
            // Both counts must have been read and be zero: a missing line is not taken for a zero.
            if let read = candidate, read.anonymousKiB == 0, read.swapKiB == 0 { found.append(read.mapping) }
            candidate = nil
        }
    }

    typealias Line = Slice<UnsafeBufferPointer<UInt8>>

    /// "start-end perms offset dev inode /path" (the path may hold spaces).
    private struct Header {
        var start: UInt
        var end: UInt
        /// Read-only (executable or not), private, and a file.
        var isCandidate: Bool

        init?(_ line: Line) {
            var index = line.startIndex
            guard let start = Header.hex(line, &index, until: UInt8(ascii: "-")),
                  let end = Header.hex(line, &index, until: UInt8(ascii: " ")), end > start else { return nil }
            self.start = start
            self.end = end
            let perms = Header.token(line, &index)
            _ = Header.token(line, &index)  // offset
            _ = Header.token(line, &index)  // device
            let inode = Header.token(line, &index)
            while index < line.endIndex, line[index] == UInt8(ascii: " ") { index += 1 }
            let readOnlyPrivate = perms.elementsEqual("r-xp".utf8) || perms.elementsEqual("r--p".utf8)
            let aFile = !inode.isEmpty && !inode.elementsEqual("0".utf8) && index < line.endIndex && line[index] == UInt8(ascii: "/")
            isCandidate = readOnlyPrivate && aFile
        }

        /// Hex digits up to `terminator` (consumed); nil when anything else comes first or none do.
        private static func hex(_ line: Line, _ index: inout Int, until terminator: UInt8) -> UInt? {
            var value: UInt = 0, digits = 0
            while index < line.endIndex, line[index] != terminator {
                let byte = line[index]
                let digit: UInt
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt(byte - UInt8(ascii: "a") + 10)
                default: return nil
                }
                guard digits < 16 else { return nil }
                value = value << 4 | digit
                digits += 1
                index += 1
            }
            guard digits > 0, index < line.endIndex else { return nil }
            index += 1
            return value
        }

        /// The next run of non-space bytes.
        private static func token(_ line: Line, _ index: inout Int) -> Line {
            while index < line.endIndex, line[index] == UInt8(ascii: " ") { index += 1 }
            let start = index
            while index < line.endIndex, line[index] != UInt8(ascii: " ") { index += 1 }
            return line[start..<index]
        }
    }

    /// The number of a "Name:   123 kB" line, when the line is that field.
    private static func kibibytes(named name: String, in line: Line) -> Int? {
        let prefix = name.utf8
        guard line.count > prefix.count, line.prefix(prefix.count).elementsEqual(prefix) else { return nil }
        var index = line.startIndex + prefix.count
        while index < line.endIndex, line[index] == UInt8(ascii: " ") { index += 1 }
        var value = 0, digits = 0
        while index < line.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index]), digits < 18 {
            value = value * 10 + Int(line[index] - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        return digits > 0 ? value : nil
    }
}
