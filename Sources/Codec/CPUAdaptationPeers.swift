import Synchronization

/// The renditions of one camera adapting to CPU overload together, lowest priority first.
///
/// Renditions share the machine's cores, so an overload one encoder measures is the camera's:
/// the rendition that gives way is the lowest-priority one (the last, the cheapest to degrade)
/// that still has a rung below, whichever encoder saw the overload. Stepping back up goes the
/// other way: a rendition climbs only when every higher-priority one is back at its configured
/// rung and every encoder reports headroom, so the top rendition (the YouTube upload) is the
/// first restored and a step up never starves a sibling.
///
/// Each rendition's ``EncoderQueue`` keeps its own detector and ladder (``CPUAdaptation``); this
/// only answers their questions and carries a step one encoder asks of another, which that
/// encoder's own thread applies before its next frame. Index 0 is the top rendition.
public final class CPUAdaptationPeers: Sendable {
    private struct Entry {
        var rungIndex = 0
        var rungCount = 1
        var hasHeadroom = false
        /// A step down asked of this rendition by another's overload: that overload, as logged.
        var requestedStepDown: String?
    }

    private let entries: Mutex<[Entry]>

    /// For a camera with `count` renditions, each adapting.
    public init(count: Int) { entries = Mutex(Array(repeating: Entry(), count: max(1, count))) }

    /// Where rendition `index` is now, and whether its encoder had headroom in its last period.
    public func report(_ index: Int, rungIndex: Int, rungCount: Int, hasHeadroom: Bool) {
        entries.withLock { entries in
            guard entries.indices.contains(index) else { return }
            entries[index].rungIndex = rungIndex
            entries[index].rungCount = rungCount
            entries[index].hasHeadroom = hasHeadroom
        }
    }

    /// Whether any rendition still has a rung below.
    public var anyCanStepDown: Bool { entries.withLock { $0.contains { $0.rungIndex + 1 < $0.rungCount } } }

    /// Which rendition steps down for an overload `index` measured: the lowest-priority one with a
    /// rung left (nil when all are at their floor). When that is another rendition, the step is
    /// left for its thread (``takeRequestedStepDown(_:)``) with `reason` to log.
    public func stepDownTarget(overloadedBy index: Int, reason: String) -> Int? {
        entries.withLock { entries in
            guard let target = entries.indices.last(where: { entries[$0].rungIndex + 1 < entries[$0].rungCount }) else { return nil }
            if target != index { entries[target].requestedStepDown = reason }
            return target
        }
    }

    /// Whether rendition `index` may step up now: every higher-priority rendition is at its
    /// configured rung and every encoder had headroom in its last period.
    public func mayStepUp(_ index: Int) -> Bool {
        entries.withLock { entries in
            entries.allSatisfy(\.hasHeadroom) && entries.prefix(max(0, index)).allSatisfy { $0.rungIndex == 0 }
        }
    }

    /// The step down another rendition's overload asked of `index`, if any (taken once).
    public func takeRequestedStepDown(_ index: Int) -> String? {
        entries.withLock { entries in
            guard entries.indices.contains(index), let reason = entries[index].requestedStepDown else { return nil }
            entries[index].requestedStepDown = nil
            return reason
        }
    }
}
