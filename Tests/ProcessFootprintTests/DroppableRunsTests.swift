import Testing
@testable import ProcessFootprint

@Suite struct DroppableRunsTests {
    static let resident = PageMapEntry(bits: 1 << 63 | 1 << 61)
    static let absent = PageMapEntry(bits: 0)
    static let privateCopy = PageMapEntry(bits: 1 << 63)
    static let swapped = PageMapEntry(bits: 1 << 62)

    /// A loaded object's header, code and read-only data lie end to end: one run, one release call,
    /// absent pages between resident ones included.
    @Test func joinsAdjacentPagesIntoOneRun() {
        let pages: [(UInt, PageMapEntry)] = [(0x1000, Self.absent), (0x2000, Self.resident), (0x3000, Self.absent), (0x4000, Self.resident),
                                             (0x9000, Self.resident), (0xA000, Self.absent)]
        #expect(Self.runs(of: pages) == [PageRange(start: 0x1000, end: 0x5000), PageRange(start: 0x9000, end: 0xB000)])
    }

    /// A private copy or a swapped page is never inside a run: the runs end before it and start after.
    @Test func leavesOutPagesThatHoldPrivateData() {
        let pages: [(UInt, PageMapEntry)] = [(0x1000, Self.resident), (0x2000, Self.privateCopy), (0x3000, Self.resident),
                                             (0x4000, Self.swapped), (0x5000, Self.resident), (0x6000, Self.resident)]
        #expect(Self.runs(of: pages) == [PageRange(start: 0x1000, end: 0x2000), PageRange(start: 0x3000, end: 0x4000),
                                         PageRange(start: 0x5000, end: 0x7000)])
    }

    /// Nothing resident, nothing to drop: no call at all.
    @Test func skipsRunsWithNoResidentPage() {
        let pages: [(UInt, PageMapEntry)] = [(0x1000, Self.absent), (0x2000, Self.absent), (0x3000, Self.privateCopy),
                                             (0x4000, Self.absent), (0x8000, Self.resident)]
        #expect(Self.runs(of: pages) == [PageRange(start: 0x8000, end: 0x9000)])
        #expect(Self.runs(of: []).isEmpty)
    }

    /// Only a page that starts where the run ends continues it, and a finished run is not continued.
    @Test func startsAfreshAtAGapAndAfterFinishing() {
        var runs = DroppableRuns()
        var seen: [PageRange] = []
        runs.add(page: 0x1000, size: 0x1000, entry: Self.resident) { seen.append($0) }
        runs.add(page: 0x2800, size: 0x1000, entry: Self.resident) { seen.append($0) }
        runs.finish { seen.append($0) }
        runs.add(page: 0x3800, size: 0x1000, entry: Self.resident) { seen.append($0) }
        runs.finish { seen.append($0) }
        #expect(seen == [PageRange(start: 0x1000, end: 0x2000), PageRange(start: 0x2800, end: 0x3800), PageRange(start: 0x3800, end: 0x4800)])
    }

    private static func runs(of pages: [(UInt, PageMapEntry)]) -> [PageRange] {
        var runs = DroppableRuns()
        var seen: [PageRange] = []
        for (start, entry) in pages { runs.add(page: start, size: 0x1000, entry: entry) { seen.append($0) } }
        runs.finish { seen.append($0) }
        return seen
    }
}
