import Foundation

/// Reads this process's /proc/self/pagemap (``PageMapEntry``) for a range of pages, through one
/// buffer allocated up front: a release reads it under the dynamic loader's lock, where nothing may
/// be allocated (see ``ProcessFootprint``).
final class PageMapReader {
    let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
    private let descriptor: Int32
    /// 64 KiB of entries: 32 MiB of address space a read.
    private let entries = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 8192)
    private static let entrySize = MemoryLayout<UInt64>.size

    /// Nil when /proc/self/pagemap does not open (no /proc mounted).
    init?() {
        descriptor = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            entries.deallocate()
            return nil
        }
    }

    deinit {
        close(descriptor)
        entries.deallocate()
    }

    /// Hands `body` each page of `range` with its pagemap entry, in order; stops at the first page
    /// pagemap does not answer for, so no unread page is ever offered.
    func forEachPage(of range: PageRange, _ body: (UInt, PageMapEntry) -> Void) {
        var page = range.start
        while page < range.end {
            let wanted = min(entries.count, Int((range.end - page) / pageSize))
            let read = pread(descriptor, entries.baseAddress, wanted * Self.entrySize, off_t(page / pageSize) * off_t(Self.entrySize))
            guard read >= Self.entrySize else { return }
            for index in 0..<(read / Self.entrySize) {
                body(page, PageMapEntry(bits: entries[index]))
                page += pageSize
            }
        }
    }
}
