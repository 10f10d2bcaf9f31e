/// Joins ranges handed in one after another into runs of adjacent ones, so a release advises the
/// kernel once per run instead of once per mapping: a loaded object's header, code and read-only
/// data segments lie end to end, and a release made about 1,600 `madvise` calls for ~800 parts
/// (BENCHMARKS.md, "CPU beside GStreamer … (part 3)"). Allocates nothing: it runs under the dynamic
/// loader's lock.
struct ContiguousRuns {
    private var run: CleanFileMapping?

    /// Adds `part`; hands `body` the run before it when `part` does not continue that run.
    mutating func add(_ part: CleanFileMapping, _ body: (CleanFileMapping) -> Void) {
        if let current = run, current.end == part.start {
            run?.end = part.end
            return
        }
        if let current = run { body(current) }
        run = part
    }

    /// Hands `body` the last run, if any, and starts afresh.
    mutating func finish(_ body: (CleanFileMapping) -> Void) {
        if let current = run { body(current) }
        run = nil
    }
}
