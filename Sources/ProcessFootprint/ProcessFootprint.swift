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
///   fault ("fault-around"). Advising random access turns fault-around off, and dropping the pages
///   (clean copies of the files, so nothing is lost: see ``CleanFileMapping``) leaves mapped only
///   what the steady state touches. These pages stay in the page cache, which the kernel reclaims
///   under pressure either way: this changes what RSS counts more than what memory is free.
public enum ProcessFootprint {
    /// As a command starts, before the encoder allocates anything.
    public static func atStart(logger: Logger) {
        if lp_disable_transparent_huge_pages() != 0 {
            logger.debug("could not turn off transparent huge pages: \(String(cString: strerror(errno)))")
        }
        release(logger: logger)
    }

    /// Releases the clean file pages and free heap pages touched since the last call.
    public static func release(logger: Logger) {
        var dropped = 0
        if let smaps = readProcBytes("/proc/self/smaps") {
            for mapping in CleanFileMapping.parse(smaps: smaps) {
                guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
                _ = madvise(start, mapping.length, MADV_RANDOM)
                if madvise(start, mapping.length, MADV_DONTNEED) == 0 { dropped += mapping.length }
            }
        }
        let heapReleased = lp_release_free_heap() == 1
        logger.debug("memory released", metadata: ["clean file mappings MiB": "\(dropped >> 20)", "free heap released": "\(heapReleased)"])
    }

    /// Releases once `settle` has passed (the command is up), after set-up work grew the
    /// file-backed resident size by more than `growthLimitBytes`, a follow-up twice
    /// `minimumInterval` after each of those, and at least every `maximumInterval`; the size is
    /// sampled every second (see ``ReleaseSchedule``). Cancel the task to stop.
    public static func keepReleasing(settle: Duration = .seconds(5), growthLimitBytes: Int = 4 << 20,
                                     minimumInterval: Duration = .seconds(5), maximumInterval: Duration = .seconds(60),
                                     logger: Logger) -> Task<Void, Never> {
        let interval = Duration.seconds(1)
        return Task {
            var schedule = ReleaseSchedule(growthLimitBytes: growthLimitBytes,
                                           minimumSamplesBetweenReleases: Int(minimumInterval / interval),
                                           maximumSamplesBetweenReleases: Int(maximumInterval / interval))
            var delay = settle
            while (try? await Task.sleep(for: delay)) != nil {
                delay = interval
                guard let resident = fileResidentBytes() else { return }
                if schedule.shouldRelease(fileResidentBytes: resident) { release(logger: logger) }
            }
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
