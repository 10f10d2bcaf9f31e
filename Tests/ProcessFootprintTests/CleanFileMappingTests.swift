import Foundation
import Testing
@testable import ProcessFootprint

@Suite struct CleanFileMappingTests {
    /// Every kind of mapping smaps lists, with the fields that decide: only clean, private,
    /// read-only mappings of a file are candidates.
    @Test func picksOnlyCleanReadOnlyFileMappings() {
        let smaps = """
        55e792961000-55e792a00000 r-xp 00001000 08:01 1234    /usr/bin/livepush
        Size:                636 kB
        Rss:                 100 kB
        Anonymous:             0 kB
        AnonHugePages:         0 kB
        Swap:                  0 kB
        VmFlags: rd ex mr mw me
        7f0000000000-7f0000010000 r--p 00000000 08:01 99      /usr/lib/libx.so
        Rss:                  64 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000010000-7f0000020000 r--p 00010000 08:01 99      /usr/lib/libx.so
        Rss:                  64 kB
        Anonymous:             4 kB
        Swap:                  0 kB
        7f0000020000-7f0000030000 r--p 00020000 08:01 99      /usr/lib/libx.so
        Anonymous:             0 kB
        Swap:                  8 kB
        7f0000030000-7f0000040000 rw-p 00030000 08:01 99      /usr/lib/libx.so
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000040000-7f0000050000 r--s 00000000 08:01 77      /dev/shm/shared
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000050000-7f0000060000 r--p 00000000 00:00 0
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000060000-7f0000070000 r-xp 00000000 08:01 55      /usr/lib/liby.so
        Anonymous:             0 kB
        7ffd1000-7ffd3000 r-xp 00000000 00:00 0               [vdso]
        Anonymous:             0 kB
        Swap:                  0 kB
        """
        #expect(CleanFileMapping.parse(smaps: smaps) == [
            CleanFileMapping(start: 0x55e7_9296_1000, end: 0x55e7_92a0_0000),
            CleanFileMapping(start: 0x7f00_0000_0000, end: 0x7f00_0001_0000),
        ])
    }

    @Test func skipsGarbage() {
        #expect(CleanFileMapping.parse(smaps: "").isEmpty)
        #expect(CleanFileMapping.parse(smaps: "zz-yy r-xp 0 08:01 1 /x\nAnonymous: 0 kB\nSwap: 0 kB").isEmpty)
        #expect(CleanFileMapping.parse(smaps: "2000-1000 r-xp 0 08:01 1 /x\nAnonymous: 0 kB\nSwap: 0 kB").isEmpty)
    }

    /// On this process's own smaps (hundreds of mappings), the byte parser finds exactly what a plain
    /// reading line by line with Swift strings finds.
    @Test func agreesWithAPlainReadingOfThisProcess() throws {
        let bytes = try #require(ProcessFootprint.readProcBytes("/proc/self/smaps"))
        var expected: [CleanFileMapping] = []
        var current: (mapping: CleanFileMapping, anonymous: Int?, swap: Int?)?
        func finish() {
            if let read = current, read.anonymous == 0, read.swap == 0 { expected.append(read.mapping) }
            current = nil
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-") ?? []
            if range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16) {
                finish()
                if fields.count >= 6, ["r-xp", "r--p"].contains(fields[1]), fields[4] != "0", fields[5].hasPrefix("/") {
                    current = (CleanFileMapping(start: start, end: end), nil, nil)
                }
            } else if fields.count == 3, fields[0] == "Anonymous:" {
                current?.anonymous = Int(fields[1])
            } else if fields.count == 3, fields[0] == "Swap:" {
                current?.swap = Int(fields[1])
            }
        }
        finish()
        #expect(expected.count > 20, "this process maps its libraries")
        #expect(CleanFileMapping.parse(smaps: bytes) == expected)
    }

    /// Only the parts of clean mappings inside a loaded object's read-only segment are dropped: a
    /// mapping no segment covers (a data file, or a range a library is being loaded into) is left.
    @Test func dropsOnlyWhatLiesInsideReadOnlySegments() {
        let mappings = [CleanFileMapping(start: 0x1000, end: 0x5000), CleanFileMapping(start: 0x8000, end: 0x9000),
                        CleanFileMapping(start: 0x20000, end: 0x30000)]
        let segments = [CleanFileMapping(start: 0x20000, end: 0x22000), CleanFileMapping(start: 0x0, end: 0x2000),
                        CleanFileMapping(start: 0x4000, end: 0x6000), CleanFileMapping(start: 0x28000, end: 0x40000)]
        func parts(within segments: [CleanFileMapping]) -> [CleanFileMapping] {
            var parts: [CleanFileMapping] = []
            for segment in segments { CleanFileMapping.forEachPart(of: mappings, within: segment) { parts.append($0) } }
            return parts
        }
        #expect(parts(within: segments) == [
            CleanFileMapping(start: 0x20000, end: 0x22000), CleanFileMapping(start: 0x1000, end: 0x2000),
            CleanFileMapping(start: 0x4000, end: 0x5000), CleanFileMapping(start: 0x28000, end: 0x30000),
        ])
        #expect(parts(within: [CleanFileMapping(start: 0x5000, end: 0x8000), CleanFileMapping(start: 0x40000, end: 0x50000)]).isEmpty)
        #expect(parts(within: [CleanFileMapping(start: 0x0, end: 0x100000)]) == mappings)
    }

    /// A release reads smaps through one small buffer: lines split across reads come out whole, a
    /// line longer than the buffer in buffer-long pieces, and a file that does not open says so.
    @Test func readsLinesThroughASmallBuffer() throws {
        let lines = (0..<50).map { "line \($0) " + String(repeating: "x", count: $0 % 40) }
        let long = String(repeating: "y", count: 150)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(getpid()).txt").path
        try (lines.joined(separator: "\n") + "\n" + long).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var read: [String] = []
        let opened = ProcessFootprint.scanLines(ofFile: path, bufferBytes: 64) { read.append(String(decoding: $0, as: UTF8.self)) }
        #expect(opened)
        #expect(read == lines + [String(repeating: "y", count: 64), String(repeating: "y", count: 64), String(repeating: "y", count: 22)])
        #expect(!ProcessFootprint.scanLines(ofFile: "/nonexistent/lines-\(getpid())") { _ in })
    }

    /// Scanning this process's smaps line by line through the buffer finds the candidates that
    /// parsing the text whole finds (the text read just before; a mapping may come or go between).
    @Test func scanningSmapsAgreesWithParsingItWhole() throws {
        let whole = CleanFileMapping.parse(smaps: try #require(ProcessFootprint.readProcBytes("/proc/self/smaps")))
        var scanner = CleanFileMapping.Scanner()
        let opened = ProcessFootprint.scanLines(ofFile: "/proc/self/smaps", bufferBytes: 4096) { scanner.scan(line: $0) }
        #expect(opened)
        let scanned = scanner.finish()
        #expect(whole.count > 10)
        #expect(Set(whole.map(\.start)).symmetricDifference(scanned.map(\.start)).count <= 2)
    }
}
