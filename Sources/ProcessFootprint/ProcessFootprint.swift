import CLoadedObjects
import CProcess
import Foundation
import Logging

/// Keeps the resident set of a long-running `stream` or `serve` small, for a Raspberry Pi that has
/// little memory to spare (see BENCHMARKS.md, "`livepush serve`").
///
/// Three things inflate it that the process itself can undo:
/// - x264 asks for transparent huge pages on its frame buffers, and each buffer then occupies whole
///   2 MiB pages; ordinary pages cost only what is touched.
/// - Heap freed after start-up (config parsing, encoder set-up, a viewer's DTLS handshake) stays
///   mapped in glibc's per-thread arenas until it is handed back.
/// - Clean file pages: start-up touches code, and the dynamic loader reads symbol and relocation
///   tables of ~150 libraries, that never run or are read again; the kernel also maps ahead of every
///   fault ("fault-around", 64 KiB). Advising random access turns read-ahead off (not fault-around:
///   on Linux 6.18 a touch still maps 64 KiB of a page-cached file either way, BENCHMARKS.md), and
///   dropping the pages (clean copies of the files, so nothing is lost: see ``PageMapEntry``)
///   leaves mapped only what the steady state touches, at that granularity. These pages stay in the page cache, which the kernel reclaims
///   under pressure either way: this changes what RSS counts more than what memory is free.
public enum ProcessFootprint {
    /// As a command starts, before the encoder allocates anything.
    public static func atStart(logger: Logger) {
        if lp_disable_transparent_huge_pages() != 0 {
            logger.debug("could not turn off transparent huge pages: \(String(cString: strerror(errno)))")
        }
        sealProgramReadOnlyData(logger: logger)
        release(logger: logger)
    }

    /// Makes the program's `.rodata` read-only when the link left it writable (the release build
    /// links Swift's runtime and Foundation in, and they make it so), so that releases drop what
    /// start-up read of it like any other clean read-only page (`lp_seal_writable_rodata`).
    static func sealProgramReadOnlyData(logger: Logger) {
        let sealed = lp_seal_writable_rodata("/proc/self/exe", "")
        if sealed < 0 {
            logger.debug("left the program's writable .rodata as it is", metadata: ["reason": "\(sealed)"])
        } else if sealed > 0 {
            logger.debug("sealed the program's writable .rodata read-only", metadata: ["MiB": "\(sealed >> 20)"])
        }
    }

    /// Releases the clean file pages and free heap pages touched since the last call.
    public static func release(logger: Logger) {
        let dropped = dropCleanReadOnlySegments()
        let heapReleased = lp_release_free_heap() == 1
        logger.debug("memory released", metadata: ["clean file mappings MiB": "\(dropped.droppedBytes >> 20)", "free heap released": "\(heapReleased)",
                                                   "objects skipped": "\(dropped.skippedObjects)"])
    }

    /// Releases once `settle` has passed (the command is up), after set-up work grew the
    /// file-backed resident size by more than `growthLimitBytes`, a follow-up twice
    /// `minimumInterval` after each of those, and at least every `maximumInterval`; the size is
    /// sampled every second (see ``ReleaseSchedule``). In between, the free heap alone is handed
    /// back each time more than `heapGrowthLimitBytes` of it was freed (``HeapTrimSchedule``: the
    /// capture pool's start-up buffers once idle, a viewer's handshake). Cancel the task to stop.
    public static func keepReleasing(settle: Duration = .seconds(5), growthLimitBytes: Int = 4 << 20,
                                     heapGrowthLimitBytes: Int = 2 << 20,
                                     minimumInterval: Duration = .seconds(5), maximumInterval: Duration = .seconds(60),
                                     logger: Logger) -> Task<Void, Never> {
        let interval = Duration.seconds(1)
        return Task {
            var schedule = ReleaseSchedule(growthLimitBytes: growthLimitBytes,
                                           minimumSamplesBetweenReleases: Int(minimumInterval / interval),
                                           maximumSamplesBetweenReleases: Int(maximumInterval / interval))
            var heap = HeapTrimSchedule(growthLimitBytes: heapGrowthLimitBytes)
            var delay = settle
            while (try? await Task.sleep(for: delay)) != nil {
                delay = interval
                guard let resident = fileResidentBytes() else { return }
                if schedule.shouldRelease(fileResidentBytes: resident) {
                    release(logger: logger)
                    heap.trimmed(freeHeapBytes: lp_free_heap_bytes())
                } else if heap.shouldTrim(freeHeapBytes: lp_free_heap_bytes()) {
                    let released = lp_release_free_heap() == 1
                    logger.debug("free heap released", metadata: ["released": "\(released)"])
                }
            }
        }
    }

    /// Drops the resident pages of the loaded objects' read-only segments that are clean copies of
    /// their files, one object at a time (reading an object's program headers faults their page
    /// back in: see `lp_with_read_only_segments`), and returns how many bytes that covered and how
    /// many objects had too many segments to be offered.
    ///
    /// Which pages are clean is read from /proc/self/pagemap and acted on while the loader's lock is
    /// held (`lp_with_read_only_segments`). A dlopen on another thread (ALSA's plugins, a resolver
    /// module) maps a library over a range and writes its relocations there; dropping such a page
    /// reverts it to the file: a crash (seen once, under heaptrack, in the loader's symbol lookup,
    /// when the mappings were read before the lock). Under the lock only read-only segments of
    /// objects loaded at that moment are offered: none can be unloaded or have its range reused
    /// meanwhile, an object being loaded is not among them, and the loader never writes into a
    /// segment without write permission. pagemap then leaves out, page by page, any private copy
    /// or swapped page there (a debugger's breakpoint, a GOT patcher's write; ``DroppableRuns``); a
    /// file mapped as data (not a loaded object) is never dropped. Nothing is allocated under the
    /// lock, the buffer for pagemap included: a tool that hooks malloc and unwinds the stack there
    /// (heaptrack's libunwind takes its own lock, then the loader's) deadlocks against the release.
    private static func dropCleanReadOnlySegments() -> (droppedBytes: Int, skippedObjects: Int) {
        guard let pages = PageMapReader() else { return (0, 0) }
        let release = LockedRelease(pages: pages)
        let walk = lp_with_read_only_segments({ context, pairs, count in
            guard let context, let pairs else { return }
            let release = Unmanaged<LockedRelease>.fromOpaque(context).takeUnretainedValue()
            var runs = DroppableRuns()
            for index in 0..<count {
                let segment = PageRange(start: UInt(pairs[2 * index]), end: UInt(pairs[2 * index + 1]))
                release.pages.forEachPage(of: segment) { page, entry in
                    runs.add(page: page, size: release.pages.pageSize, entry: entry) { release.drop($0) }
                }
            }
            runs.finish { release.drop($0) }
        }, Unmanaged.passUnretained(release).toOpaque())
        return withExtendedLifetime(release) { (release.droppedBytes, Int(walk.skipped)) }
    }

    /// What the locked part of a release reads with and counts, made before the lock is taken.
    private final class LockedRelease {
        let pages: PageMapReader
        var droppedBytes = 0

        init(pages: PageMapReader) { self.pages = pages }

        /// Random access (no read-ahead) for `range`, then its resident pages dropped and counted.
        func drop(_ range: PageRange) {
            guard let start = UnsafeMutableRawPointer(bitPattern: range.start) else { return }
            _ = madvise(start, range.length, MADV_RANDOM)
            if madvise(start, range.length, MADV_DONTNEED) == 0 { droppedBytes += range.length }
        }
    }

    /// Resident file-backed (and shared) memory: the third field of /proc/self/statm, in pages.
    private static func fileResidentBytes() -> Int? {
        guard let statm = readProcBytes("/proc/self/statm") else { return nil }
        let fields = String(decoding: statm, as: UTF8.self).split(separator: " ")
        guard fields.count > 2, let pages = Int(fields[2]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// A /proc file read to its end: they report size 0, so reading by size gets only a first part.
    static func readProcBytes(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < 32 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
