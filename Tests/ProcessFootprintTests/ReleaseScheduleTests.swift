import Testing
@testable import ProcessFootprint

@Suite struct ReleaseScheduleTests {
    private static let mib = 1 << 20

    /// Start-up over: release; the next sample is the baseline; growth within the limit is left
    /// alone, growth beyond it releases, and a new baseline is taken after that.
    @Test func releasesAfterStartUpAndOnGrowth() {
        var schedule = ReleaseSchedule(growthLimitBytes: 4 * Self.mib, minimumSamplesBetweenReleases: 2,
                                       maximumSamplesBetweenReleases: 100)
        let samples = [60, 20, 22, 24, 25, 21, 30, 20, 23, 28]
        let released = samples.map { schedule.shouldRelease(fileResidentBytes: $0 * Self.mib) }
        #expect(released == [true, false, false, false, true, false, true, false, false, true])
    }

    /// Without growth, releases come every `maximumSamplesBetweenReleases` samples and no more often.
    @Test func releasesAtTheLatestEveryMaximumInterval() {
        var schedule = ReleaseSchedule(growthLimitBytes: Self.mib, minimumSamplesBetweenReleases: 2,
                                       maximumSamplesBetweenReleases: 12)
        var releasedAt: [Int] = []
        for sample in 0..<60 where schedule.shouldRelease(fileResidentBytes: (30 + sample % 2) * Self.mib) {
            releasedAt.append(sample)
        }
        #expect(releasedAt == [0, 12, 24, 36, 48])
    }

    /// Growth right after a release waits for the minimum gap: set-up in a burst is released once.
    @Test func growthWaitsForTheMinimumGap() {
        var schedule = ReleaseSchedule(growthLimitBytes: Self.mib, minimumSamplesBetweenReleases: 4,
                                       maximumSamplesBetweenReleases: 100)
        let samples = [50, 20, 30, 40, 45, 20, 21]
        let released = samples.map { schedule.shouldRelease(fileResidentBytes: $0 * Self.mib) }
        #expect(released == [true, false, false, false, true, false, false])
    }
}
