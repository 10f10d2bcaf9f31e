import Testing
@testable import ProcessFootprint

@Suite struct ContiguousRunsTests {
    /// A loaded object's header, code and read-only data lie end to end: one run, one release call.
    @Test func joinsPartsThatFollowOneAnother() {
        let parts = [
            CleanFileMapping(start: 0x1000, end: 0x2000),  // header
            CleanFileMapping(start: 0x2000, end: 0x5000),  // code
            CleanFileMapping(start: 0x5000, end: 0x6000),  // read-only data
            CleanFileMapping(start: 0x9000, end: 0xA000),  // the next object, after a writable gap
            CleanFileMapping(start: 0xA000, end: 0xB000),
        ]
        #expect(Self.runs(of: parts) == [CleanFileMapping(start: 0x1000, end: 0x6000), CleanFileMapping(start: 0x9000, end: 0xB000)])
    }

    /// Only a part that starts where the run ends continues it: a gap, an overlap or an object
    /// listed below the previous one each start a run of their own.
    @Test func startsARunAtEveryPartThatDoesNotContinueTheLast() {
        let parts = [
            CleanFileMapping(start: 0x8000, end: 0x9000),
            CleanFileMapping(start: 0x9001, end: 0xA000),  // one byte past the end
            CleanFileMapping(start: 0x9800, end: 0xB000),  // overlaps
            CleanFileMapping(start: 0x1000, end: 0x8000),  // lower, though it ends where the first starts
        ]
        #expect(Self.runs(of: parts) == parts)
    }

    @Test func handsNothingForNoParts() {
        #expect(Self.runs(of: []).isEmpty)
    }

    @Test func startsAfreshAfterFinishing() {
        var runs = ContiguousRuns()
        var seen: [CleanFileMapping] = []
        runs.add(CleanFileMapping(start: 0x1000, end: 0x2000)) { seen.append($0) }
        runs.finish { seen.append($0) }
        runs.add(CleanFileMapping(start: 0x2000, end: 0x3000)) { seen.append($0) }
        runs.finish { seen.append($0) }
        #expect(seen == [CleanFileMapping(start: 0x1000, end: 0x2000), CleanFileMapping(start: 0x2000, end: 0x3000)])
    }

    private static func runs(of parts: [CleanFileMapping]) -> [CleanFileMapping] {
        var runs = ContiguousRuns()
        var seen: [CleanFileMapping] = []
        for part in parts { runs.add(part) { seen.append($0) } }
        runs.finish { seen.append($0) }
        return seen
    }
}
