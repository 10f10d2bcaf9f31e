import Foundation
import Logging
import Testing
@testable import ProcessFootprint

/// Real mappings of a real file in this test process: a release drops the resident pages of a clean
/// read-only mapping (and its contents read back the same) but never a private page of a
/// write-protected mapping, whose contents differ from the file.
@Suite struct ProcessFootprintReleaseTests {
    static let pages = 32
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    @Test func dropsCleanPagesAndKeepsPrivateOnes() throws {
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

        #expect(try residentKiB(of: clean) == 0)
        #expect(try residentKiB(of: written) >= Self.pageSize / 1024)
        #expect(written.load(fromByteOffset: 5, as: UInt8.self) == 0xAB)
        #expect(Array(UnsafeRawBufferPointer(start: clean, count: length)) == content)
    }

    /// Rss of the mapping that starts at `address`, from /proc/self/smaps.
    private func residentKiB(of address: UnsafeMutableRawPointer) throws -> Int {
        let smaps = String(decoding: try #require(ProcessFootprint.readProcBytes("/proc/self/smaps")), as: UTF8.self)
        let start = String(UInt(bitPattern: address), radix: 16)
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if line.first?.isHexDigit == true, line.contains("-"), !line.hasPrefix("Anon") {
                inMapping = line.hasPrefix(start + "-") || line.hasPrefix("0" + start + "-")
            } else if inMapping, line.hasPrefix("Rss:") {
                return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
            }
        }
        throw ResidentLookupError(address: start)
    }

    struct ResidentLookupError: Error { var address: String }
}
