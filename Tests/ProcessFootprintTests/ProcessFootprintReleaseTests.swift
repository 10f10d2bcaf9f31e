import Foundation
import Logging
import Testing
@testable import ProcessFootprint

/// Real mappings in this test process: a release drops the resident pages of a loaded library's
/// clean read-only segments (and their contents read back the same), and never touches a file
/// mapped as data, neither a clean mapping nor a private page of a write-protected one (its
/// contents differ from the file), since such a range can be remapped by a dlopen meanwhile.
@Suite struct ProcessFootprintReleaseTests {
    static let pages = 32
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    @Test func keepsEveryPageOfAFileMappedAsData() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("footprint-\(UUID().uuidString)").path
        defer { unlink(path) }
        let length = Self.pages * Self.pageSize
        let content = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        try Data(content).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let clean = try #require(mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0))
        try #require(clean != MAP_FAILED)
        defer { munmap(clean, length) }
        let written = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0))
        try #require(written != MAP_FAILED)
        defer { munmap(written, length) }
        written.storeBytes(of: 0xAB, toByteOffset: 5, as: UInt8.self)  // one private page
        try #require(mprotect(written, length, PROT_READ) == 0)  // now r--p, as relocated data is

        var sum = 0
        for page in 0..<Self.pages { sum &+= Int(clean.load(fromByteOffset: page * Self.pageSize, as: UInt8.self)) }
        #expect(try residentKiB(of: clean) == length / 1024, "every page was touched (sum \(sum))")

        ProcessFootprint.release(logger: Logger(label: "test"))

        #expect(try residentKiB(of: clean) == length / 1024)
        #expect(try residentKiB(of: written) >= Self.pageSize / 1024)
        #expect(written.load(fromByteOffset: 5, as: UInt8.self) == 0xAB)
        #expect(Array(UnsafeRawBufferPointer(start: clean, count: length)) == content)
    }

    /// libcrypt (glibc's companion, present on every Debian, which nothing in livepush loads): its
    /// clean read-only segments, every page touched, are dropped by a release and read back the same.
    @Test func dropsALoadedLibrarysCleanReadOnlySegments() throws {
        let handle = try #require(dlopen("libcrypt.so.1", RTLD_NOW | RTLD_LOCAL), "dlopen libcrypt.so.1: \(String(cString: dlerror()))")
        defer { dlclose(handle) }
        let mappings = try cleanReadOnlyMappings(named: "/libcrypt.so")
        try #require(!mappings.isEmpty, "no read-only mapping of libcrypt in /proc/self/maps")
        let before = mappings.map { Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: $0.start), count: $0.length)) }
        #expect(try mappings.allSatisfy { try residentKiB(of: UnsafeMutableRawPointer(bitPattern: $0.start)!) == $0.length / 1024 })

        ProcessFootprint.release(logger: Logger(label: "test"))

        let after = try mappings.map { try residentKiB(of: UnsafeMutableRawPointer(bitPattern: $0.start)!) }
        #expect(after.allSatisfy { $0 == 0 }, "resident KiB after the release: \(after)")
        #expect(mappings.map { Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: $0.start), count: $0.length)) } == before)
    }

    /// A page of a loaded library's code that holds a private copy (as a debugger's breakpoint
    /// leaves one) keeps what was written there through a release, while the clean pages on either
    /// side of it are dropped. libthread_db (glibc's, for debuggers) runs in no test.
    @Test func keepsAPrivateCopyInsideALoadedLibrarysCode() throws {
        let handle = try #require(dlopen("libthread_db.so.1", RTLD_LAZY | RTLD_LOCAL), "dlopen libthread_db.so.1: \(String(cString: dlerror()))")
        defer { dlclose(handle) }
        let code = try #require(try cleanReadOnlyMappings(named: "/libthread_db.so", perms: ["r-xp"]).first)
        let pageSize = UInt(Self.pageSize)
        try #require(code.length >= 3 * Self.pageSize, "libthread_db's code spans \(code.length) bytes")
        let page = try #require(UnsafeMutableRawPointer(bitPattern: code.start + pageSize))
        let original = page.load(as: UInt8.self)
        try #require(mprotect(page, Self.pageSize, PROT_READ | PROT_WRITE) == 0)
        page.storeBytes(of: ~original, as: UInt8.self)
        try #require(mprotect(page, Self.pageSize, PROT_READ | PROT_EXEC) == 0)
        defer {
            if mprotect(page, Self.pageSize, PROT_READ | PROT_WRITE) == 0 {
                page.storeBytes(of: original, as: UInt8.self)
                _ = mprotect(page, Self.pageSize, PROT_READ | PROT_EXEC)
            }
        }
        var sum = 0
        for offset in stride(from: 0, to: code.length, by: Self.pageSize) { sum &+= Int(UnsafeRawPointer(bitPattern: code.start)!.load(fromByteOffset: offset, as: UInt8.self)) }

        ProcessFootprint.release(logger: Logger(label: "test"))

        #expect(page.load(as: UInt8.self) == ~original)
        var entries: [UInt: PageMapEntry] = [:]
        try #require(PageMapReader()).forEachPage(of: code) { entries[$0] = $1 }
        #expect(entries[code.start + pageSize].map { $0.isPresent && $0.holdsPrivateData } == true)
        let residentElsewhere = entries.filter { $0.key != code.start + pageSize && $0.value.isPresent }.map(\.key)
        #expect(residentElsewhere.isEmpty, "pages of libthread_db's code still resident: \(residentElsewhere) (sum \(sum))")
    }

    /// The private, read-only mappings of files whose path contains `name` (/proc/self/maps) that
    /// hold no private page (/proc/self/pagemap): not the relocated data the loader write-protects.
    private func cleanReadOnlyMappings(named name: String, perms: Set<Substring> = ["r-xp", "r--p"]) throws -> [PageRange] {
        let maps = String(decoding: try #require(ProcessFootprint.readProcBytes("/proc/self/maps")), as: UTF8.self)
        let reader = try #require(PageMapReader())
        return maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, perms.contains(fields[1]), fields[5].contains(name) else { return nil }
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2 else { return nil }
            var clean = true
            reader.forEachPage(of: PageRange(start: bounds[0], end: bounds[1])) { clean = clean && !$1.holdsPrivateData }
            return clean ? PageRange(start: bounds[0], end: bounds[1]) : nil
        }
    }

    /// Rss of the mapping that starts at `address`, from /proc/self/smaps.
    private func residentKiB(of address: UnsafeMutableRawPointer) throws -> Int {
        guard let mapping = SmapsMapping.containing(address) else {
            throw ResidentLookupError(address: String(UInt(bitPattern: address), radix: 16))
        }
        return mapping.rssKiB
    }

    struct ResidentLookupError: Error { var address: String }
}
