import Foundation
import Testing
@testable import ProcessFootprint

@Suite struct PageMapEntryTests {
    @Test func readsTheFlagBits() {
        let filePage = PageMapEntry(bits: 1 << 63 | 1 << 61 | 0x1234)
        #expect(filePage.isPresent && filePage.isFilePage && !filePage.isSwapped && !filePage.holdsPrivateData)
        #expect(PageMapEntry(bits: 1 << 63).holdsPrivateData)
        #expect(PageMapEntry(bits: 1 << 62).holdsPrivateData)
        #expect(!PageMapEntry(bits: 0).holdsPrivateData)
        #expect(!PageMapEntry(bits: 1 << 61).isPresent)
    }

    /// What the kernel reports for a private mapping of a file, read through a release's reader: a
    /// page touched is the file's own page, a page written is a private copy, and a page whose
    /// mapping was dropped is absent. (Not "a page never touched": how far a touch maps around it
    /// depends on the kernel and the page cache's folio sizes, and a CI run saw a page 252 KiB away
    /// mapped.)
    @Test func tellsTheFilesPagesFromPrivateCopiesInAMapping() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = (256 << 10) / pageSize * pageSize
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pagemap-\(UUID().uuidString)").path
        defer { unlink(path) }
        try Data(repeating: 7, count: length).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let mapping = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0))
        try #require(mapping != MAP_FAILED)
        defer { munmap(mapping, length) }
        let read = mapping.load(fromByteOffset: 0, as: UInt8.self)
        mapping.storeBytes(of: 9, toByteOffset: pageSize, as: UInt8.self)
        try #require(madvise(mapping + (length - pageSize), pageSize, MADV_DONTNEED) == 0)

        let start = UInt(bitPattern: mapping)
        var entries: [(UInt, PageMapEntry)] = []
        try #require(PageMapReader()).forEachPage(of: PageRange(start: start, end: start + UInt(length))) {
            entries.append(($0, $1))
        }
        #expect(entries.map(\.0) == (0..<(length / pageSize)).map { start + UInt($0 * pageSize) })
        try #require(entries.count == length / pageSize)
        #expect(entries[0].1.isPresent && entries[0].1.isFilePage && !entries[0].1.holdsPrivateData, "read \(read)")
        #expect(!entries[1].1.isFilePage && entries[1].1.holdsPrivateData)
        #expect(!entries.last!.1.isPresent && !entries.last!.1.holdsPrivateData)
    }
}
