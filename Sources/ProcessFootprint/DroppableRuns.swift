/// Joins the pages of a loaded object's read-only segments, handed in one after another with
/// their pagemap entries, into the runs a release drops.
///
/// A run is a stretch of adjacent pages none of which holds private data (``PageMapEntry``): it
/// ends before such a page, so that page is never dropped, and at any gap. A run with no resident
/// page is left alone, since there is nothing to drop. Otherwise a run spans the pages between
/// resident ones too: an object's header, code and read-only data lie end to end, and the kernel is
/// advised once per run rather than once per resident stretch (a release made about 1,600 `madvise`
/// calls for ~800 parts when each was advised alone: BENCHMARKS.md, "CPU beside GStreamer … (part
/// 3)"), and whole mappings keep their random-access advice without being split. Allocates nothing:
/// it runs under the dynamic loader's lock.
struct DroppableRuns {
    private var run: PageRange?
    private var runHasResidentPage = false

    /// Adds the page `[start, start + size)`; hands `body` the run before it when that run ends here.
    mutating func add(page start: UInt, size: UInt, entry: PageMapEntry, _ body: (PageRange) -> Void) {
        if entry.holdsPrivateData {
            finish(body)
            return
        }
        if let current = run, current.end == start {
            run?.end = start + size
        } else {
            finish(body)
            run = PageRange(start: start, end: start + size)
        }
        runHasResidentPage = runHasResidentPage || entry.isPresent
    }

    /// Hands `body` the last run, if it has a resident page, and starts afresh.
    mutating func finish(_ body: (PageRange) -> Void) {
        if let current = run, runHasResidentPage { body(current) }
        run = nil
        runHasResidentPage = false
    }
}
