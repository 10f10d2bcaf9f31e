/// One page's entry in /proc/PID/pagemap (the kernel's admin-guide/mm/pagemap.rst): whether the
/// page is mapped, whether it is in swap, and whether it is a page of its file rather than the
/// process's own copy.
///
/// A release reads these for the loaded objects' read-only segments instead of /proc/self/smaps:
/// the kernel walks only those ranges and writes eight bytes a page, where smaps walks every
/// mapping and formats two dozen lines for each (650 KB of text and 4.4 ms for the ~830 mappings
/// of a `stream` run, the better part of a release's cost: BENCHMARKS.md). Without privileges the
/// page frame numbers read as zero; these flags do not.
struct PageMapEntry: Equatable {
    let bits: UInt64

    var isPresent: Bool { bits & (1 << 63) != 0 }
    var isSwapped: Bool { bits & (1 << 62) != 0 }
    /// Mapped from a file (or shared memory): in a private mapping, the file's own page.
    var isFilePage: Bool { bits & (1 << 61) != 0 }

    /// The page holds something its file does not: a private copy (relocated data that was then
    /// write-protected, a debugger's breakpoint) or a page in swap. Dropping it would lose that.
    var holdsPrivateData: Bool { isSwapped || (isPresent && !isFilePage) }
}
