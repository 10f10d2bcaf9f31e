import CLoadedObjects
import Foundation
import Logging
import Testing
import TestSupport
@testable import ProcessFootprint

/// `lp_seal_writable_rodata` on a real loaded object whose link left `.rodata` writable, as the
/// release build's (Swift's static runtime emits writable protocol conformance records there): a
/// library built here with a table placed in a writable `.rodata`. Once sealed, its pages are
/// read-only, a release drops them like any clean read-only segment, and they read back the same.
@Suite struct SealedReadOnlyDataTests {
    static let tableBytes = 256 << 10

    @Test func sealsAWritableRodataSoAReleaseDropsItsPages() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("table.c")
        // A non-const array given the section `.rodata`: the compiler marks that section writable.
        try """
        __attribute__((section(".rodata"))) unsigned char lp_table[\(Self.tableBytes)] = { 1 };
        unsigned char lp_table_byte(unsigned long index) { return lp_table[index]; }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let library = dir.file("libtable.so")
        try ExternalTool.run("cc", ["-shared", "-fPIC", "-O1", source, "-o", library], timeoutSeconds: 60)

        let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL), "dlopen \(library): \(String(cString: dlerror()))")
        // Left loaded: the sealed range stays registered for the object of this name.
        let symbol = try #require(dlsym(handle, "lp_table"))
        let table = UnsafeRawPointer(symbol)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var sum = 0
        for offset in stride(from: 0, to: Self.tableBytes, by: pageSize) { sum &+= Int(table.load(fromByteOffset: offset, as: UInt8.self)) }
        #expect(sum == 1)
        let before = Array(UnsafeRawBufferPointer(start: table, count: Self.tableBytes))

        // Inside the pages the section alone occupies (its first page may be shared with .data).
        let probe = table + pageSize
        let writable = try #require(SmapsMapping.containing(probe))
        #expect(writable.perms == "rw-p", "the table's mapping before sealing: \(writable)")
        ProcessFootprint.release(logger: Logger(label: "test"))
        let kept = try #require(SmapsMapping.containing(probe))
        #expect(kept.rssKiB >= Self.tableBytes / 1024 - 8, "a release dropped pages of a writable mapping: \(kept)")

        let sealed = lp_seal_writable_rodata(library, library)
        #expect(sealed >= Self.tableBytes - 2 * pageSize, "sealed \(sealed) bytes of a \(Self.tableBytes)-byte writable .rodata")
        #expect(lp_seal_writable_rodata(library, library) == sealed, "sealing it again changes nothing")
        let readOnly = try #require(SmapsMapping.containing(probe))
        #expect(readOnly.perms == "r--p", "the table's mapping after sealing: \(readOnly)")
        #expect(readOnly.rssKiB >= Self.tableBytes / 1024 - 8)

        ProcessFootprint.release(logger: Logger(label: "test"))

        let dropped = try #require(SmapsMapping.containing(probe))
        #expect(dropped.rssKiB == 0, "resident after the release: \(dropped)")
        #expect(Array(UnsafeRawBufferPointer(start: table, count: Self.tableBytes)) == before)
        #expect(lp_seal_writable_rodata(library, "/no/such/object.so") == -2)
    }

    /// libcrypt, as Debian builds it, keeps `.rodata` in a read-only segment: nothing to seal.
    @Test func anObjectWithAReadOnlyRodataIsLeftAsItIs() throws {
        let handle = try #require(dlopen("libcrypt.so.1", RTLD_NOW | RTLD_LOCAL), "dlopen libcrypt.so.1: \(String(cString: dlerror()))")
        defer { dlclose(handle) }
        let maps = String(decoding: ProcessFootprint.readProcBytes("/proc/self/maps") ?? [], as: UTF8.self)
        let line = try #require(maps.split(separator: "\n").first { $0.contains("/libcrypt.so") }, "libcrypt is not in /proc/self/maps")
        let path = String(try #require(line.firstIndex(of: "/").map { line[$0...] }))
        #expect(lp_seal_writable_rodata(path, path) == 0)
        #expect(lp_seal_writable_rodata("/nonexistent/livepush", "") == -1)
    }
}
