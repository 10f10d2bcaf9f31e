/// When to release clean file pages again, from the file-backed resident size sampled at a fixed
/// interval.
///
/// Set-up work (a viewer's HTTP offer, ICE and DTLS handshake; outputs starting; a config reload; a
/// camera switch) faults in code that then sits resident; the steady state re-faults only what it
/// runs. So pages are released:
/// - once start-up is over, and when the size has grown by more than `growthLimitBytes` over the
///   steady state measured after the last release (no sooner than `minimumSamplesBetweenReleases`
///   after it);
/// - each time again `2 × minimumSamplesBetweenReleases` samples later, because set-up comes in
///   stages (outputs start, then a viewer connects seconds later) and a release in the middle would
///   take the rest of it for the steady state;
/// - at the latest every `maximumSamplesBetweenReleases` samples, for set-up that slipped between
///   a release and the baseline taken one sample after it.
/// A process that settles stops releasing but for the last rule.
struct ReleaseSchedule {
    let growthLimitBytes: Int
    let minimumSamplesBetweenReleases: Int
    let maximumSamplesBetweenReleases: Int
    private var releaseDue = true
    private var followUpDue = false
    private var baseline: Int?
    private var samplesSinceRelease = 0

    init(growthLimitBytes: Int, minimumSamplesBetweenReleases: Int, maximumSamplesBetweenReleases: Int) {
        self.growthLimitBytes = growthLimitBytes
        self.minimumSamplesBetweenReleases = max(1, minimumSamplesBetweenReleases)
        self.maximumSamplesBetweenReleases = max(2 * self.minimumSamplesBetweenReleases, maximumSamplesBetweenReleases)
    }

    /// One sample; true when the pages should be released now.
    mutating func shouldRelease(fileResidentBytes: Int) -> Bool {
        samplesSinceRelease += 1
        if releaseDue {
            return released(followedUp: true)
        }
        if followUpDue {
            return samplesSinceRelease >= 2 * minimumSamplesBetweenReleases ? released(followedUp: false) : false
        }
        if samplesSinceRelease >= maximumSamplesBetweenReleases {
            return released(followedUp: false)
        }
        guard let baseline else {
            self.baseline = fileResidentBytes
            return false
        }
        let grown = fileResidentBytes > baseline + growthLimitBytes
        return grown && samplesSinceRelease >= minimumSamplesBetweenReleases ? released(followedUp: true) : false
    }

    private mutating func released(followedUp: Bool) -> Bool {
        releaseDue = false
        followUpDue = followedUp
        baseline = nil
        samplesSinceRelease = 0
        return true
    }
}
