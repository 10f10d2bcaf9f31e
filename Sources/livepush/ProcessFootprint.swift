import CProcess
import Foundation
import Logging

/// Keeps the resident set of a long-running `stream` or `serve` small, for a Raspberry Pi that has
/// little memory to spare (see BENCHMARKS.md, "Where the memory goes").
///
/// Two things inflate it (and its peak) that the process itself can undo:
/// - x264 asks for transparent huge pages on its frame buffers, and each buffer then occupies whole
///   2 MiB pages; ordinary pages cost only what is touched.
/// - Code pages: the kernel maps ahead of every fault ("fault-around"), and start-up (parsing,
///   opening the encoder, binding sockets) touches code that never runs again. Advising random
///   access turns fault-around off, so code is mapped one page at a time as it runs; dropping the
///   code pages (clean, file-backed copies of the binary and its libraries, so nothing is lost)
///   first as a command starts and again once it is up leaves mapped only the code the steady
///   state really runs.
enum ProcessFootprint {
    /// As a command starts, before the encoder allocates anything.
    static func atStart(logger: Logger) {
        avoidHugePages(logger: logger)
        releaseCodePages(logger: logger)
    }

    private static func avoidHugePages(logger: Logger) {
        if lp_disable_transparent_huge_pages() != 0 {
            logger.debug("could not turn off transparent huge pages: \(String(cString: strerror(errno)))")
        }
    }

    /// Unmaps the code pages faulted in so far (call again once the pipeline is running) and turns
    /// fault-around off for them.
    static func releaseCodePages(logger: Logger) {
        guard let maps = readProcFile("/proc/self/maps") else { return }
        var dropped = 0
        for line in maps.split(separator: "\n") {
            guard let region = CodeRegion(mapsLine: line) else { continue }
            guard let start = UnsafeMutableRawPointer(bitPattern: region.start) else { continue }
            let length = Int(region.end - region.start)
            // Only read-only executable file mappings: never written, so dropping them loses nothing.
            _ = madvise(start, length, MADV_RANDOM)
            if madvise(start, length, MADV_DONTNEED) == 0 { dropped += length }
        }
        logger.debug("code pages released for re-faulting: \(dropped / 1_048_576) MiB of mappings")
    }

    /// A /proc file read to its end: they report size 0, so reading by size gets only a first part.
    private static func readProcFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < 16 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One `r-xp` file mapping from /proc/self/maps.
struct CodeRegion: Equatable {
    var start: UInt
    var end: UInt

    /// nil for anything but a private, read-only, executable mapping of a file.
    init?(mapsLine line: Substring) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 6, fields[1] == "r-xp", fields[4] != "0", fields[5].hasPrefix("/") else { return nil }
        let bounds = fields[0].split(separator: "-")
        guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start else { return nil }
        self.start = start
        self.end = end
    }
}
