/// When to release clean file pages again, from the file-backed resident size sampled at a fixed
/// interval: once when start-up is over; whenever the size has grown by more than
/// `growthLimitBytes` over the steady state measured after the last release (but no sooner than
/// `minimumSamplesBetweenReleases` after it); and at the latest every
/// `maximumSamplesBetweenReleases` samples.
///
/// Set-up work (a viewer's DTLS handshake and SDP, a config reload, a camera switch) faults in code
/// that then sits resident; the steady state re-faults only what it runs, so the baseline is taken
/// one sample after each release, once that has settled. Set-up that falls between a release and
/// that baseline is not seen as growth: the latest-by release bounds how long its pages stay.
struct ReleaseSchedule {
    let growthLimitBytes: Int
    let minimumSamplesBetweenReleases: Int
    let maximumSamplesBetweenReleases: Int
    private var releaseDue = true
    private var baseline: Int?
    private var samplesSinceRelease = 0

    init(growthLimitBytes: Int, minimumSamplesBetweenReleases: Int, maximumSamplesBetweenReleases: Int) {
        self.growthLimitBytes = growthLimitBytes
        self.minimumSamplesBetweenReleases = max(2, minimumSamplesBetweenReleases)
        self.maximumSamplesBetweenReleases = max(self.minimumSamplesBetweenReleases, maximumSamplesBetweenReleases)
    }

    /// One sample; true when the pages should be released now.
    mutating func shouldRelease(fileResidentBytes: Int) -> Bool {
        samplesSinceRelease += 1
        if releaseDue || samplesSinceRelease >= maximumSamplesBetweenReleases {
            return released()
        }
        guard let baseline else {
            self.baseline = fileResidentBytes
            return false
        }
        let grown = fileResidentBytes > baseline + growthLimitBytes
        return grown && samplesSinceRelease >= minimumSamplesBetweenReleases ? released() : false
    }

    private mutating func released() -> Bool {
        releaseDue = false
        baseline = nil
        samplesSinceRelease = 0
        return true
    }
}
