import Testing
@testable import ProcessFootprint

@Suite struct HeapTrimScheduleTests {
    private static let mib = 1 << 20

    private static func trimmed(_ samplesMiB: [Int], growthLimitMiB: Int = 4) -> [Int] {
        var schedule = HeapTrimSchedule(growthLimitBytes: growthLimitMiB * mib)
        return samplesMiB.indices.filter { schedule.shouldTrim(freeHeapBytes: samplesMiB[$0] * mib) }
    }

    /// Free heap that rises and falls within the limit (a packet freed between frames) is left
    /// alone; a rise beyond it over the lowest count (pool buffers released) trims once.
    @Test func trimsWhenFreeHeapRoseBeyondTheLimit() {
        //                         0  1  2  3  4  5  6  7  8
        let samples = [2, 4, 2, 5, 2, 7, 7, 7, 8]
        #expect(Self.trimmed(samples) == [5])
    }

    /// The count after a trim is the new floor: trimmed pages still count as free, so the same
    /// bytes never trim twice; memory used and freed again later does.
    @Test func theCountAfterATrimIsTheNewFloor() {
        //                         0  1   2   3  4   5
        let samples = [1, 9, 10, 10, 3, 12]
        #expect(Self.trimmed(samples) == [1, 5])
    }

    /// A full release trims the heap too: the schedule starts again from that count.
    @Test func aFullReleaseResetsTheFloor() {
        var schedule = HeapTrimSchedule(growthLimitBytes: 4 * Self.mib)
        let first = schedule.shouldTrim(freeHeapBytes: 1 * Self.mib)
        schedule.trimmed(freeHeapBytes: 8 * Self.mib)
        let withinLimit = schedule.shouldTrim(freeHeapBytes: 9 * Self.mib)
        let beyondLimit = schedule.shouldTrim(freeHeapBytes: 13 * Self.mib)
        #expect([first, withinLimit, beyondLimit] == [false, false, true])
    }
}
