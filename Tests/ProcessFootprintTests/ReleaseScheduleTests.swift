import Testing
@testable import ProcessFootprint

@Suite struct ReleaseScheduleTests {
    private static let mib = 1 << 20

    private static func released(_ samplesMiB: [Int], growthLimitMiB: Int = 4, minimum: Int = 2, maximum: Int = 100) -> [Int] {
        var schedule = ReleaseSchedule(growthLimitBytes: growthLimitMiB * mib, minimumSamplesBetweenReleases: minimum,
                                       maximumSamplesBetweenReleases: maximum)
        return samplesMiB.indices.filter { schedule.shouldRelease(fileResidentBytes: samplesMiB[$0] * mib) }
    }

    /// Start-up over: release, and again 2 × minimum samples later; the sample after that is the
    /// baseline. Growth within the limit is left alone; growth beyond it releases (and is followed up).
    @Test func releasesAfterStartUpAndOnGrowthEachFollowedUp() {
        //                         0   1   2   3   4   5   6   7   8   9  10  11  12  13
        let samples = [60, 20, 40, 40, 40, 20, 22, 24, 30, 35, 35, 35, 20, 20]
        #expect(Self.released(samples) == [0, 4, 8, 12])
    }

    /// Growth right after a release waits for the minimum gap.
    @Test func growthWaitsForTheMinimumGap() {
        //                         0   1   2   3   4   5   6   7   8
        let samples = [50, 20, 20, 20, 20, 20, 40, 40, 40]
        #expect(Self.released(samples, minimum: 4) == [0, 8])
        let late = [50, 20, 20, 20, 20, 20, 20, 20, 20, 20, 40, 40, 40, 40, 40]
        #expect(Self.released(late, minimum: 4).prefix(2) == [0, 8])
        #expect(Self.released(late, minimum: 4).dropFirst(2).first == 12)
    }

    /// Without growth, releases come every `maximum` samples after the follow-up, and no more often.
    @Test func releasesAtTheLatestEveryMaximumInterval() {
        let samples = (0..<60).map { 30 + $0 % 2 }
        #expect(Self.released(samples, growthLimitMiB: 1, minimum: 2, maximum: 12) == [0, 4, 16, 28, 40, 52])
    }
}
