import CLoadedObjects
import Foundation
import Testing
@testable import ProcessFootprint

/// `lp_with_read_only_segments` offers the loaded objects' read-only segments one object at a time:
/// reading an object's program headers faults their page back in once a release dropped it, so
/// reading every object's headers before dropping any came on top of the resident set at each
/// release (3.6–5.3 MiB, issue 28).
@Suite struct LoadedObjectSegmentsTests {
    /// The segments of each call, in call order, recorded without allocating under the loader's lock.
    final class Calls {
        let starts = UnsafeMutablePointer<UInt>.allocate(capacity: 65_536)
        let ends = UnsafeMutablePointer<UInt>.allocate(capacity: 65_536)
        let calls = UnsafeMutablePointer<Int>.allocate(capacity: 65_536)
        var segments = 0
        var callCount = 0

        /// Every recorded segment as (call, start, end).
        var recorded: [[UInt]] { (0..<segments).map { [UInt(calls[$0]), starts[$0], ends[$0]] } }
        deinit {
            starts.deallocate()
            ends.deallocate()
            calls.deallocate()
        }
    }

    /// One walk, each offered segment's start and end and the call it came in recorded in `calls`.
    static func record(into calls: Calls) -> lp_segment_walk {
        lp_with_read_only_segments({ context, pairs, count in
            guard let context, let pairs else { return }
            let calls = Unmanaged<Calls>.fromOpaque(context).takeUnretainedValue()
            for index in 0..<count where calls.segments < 65_536 {
                calls.starts[calls.segments] = UInt(pairs[2 * index])
                calls.ends[calls.segments] = UInt(pairs[2 * index + 1])
                calls.calls[calls.segments] = calls.callCount
                calls.segments += 1
            }
            calls.callCount += 1
        }, Unmanaged.passUnretained(calls).toOpaque())
    }

    @Test func offersEachLoadedObjectsSegmentsInACallOfItsOwn() throws {
        let handle = try #require(dlopen("libcrypt.so.1", RTLD_NOW | RTLD_LOCAL), "dlopen libcrypt.so.1: \(String(cString: dlerror()))")
        defer { dlclose(handle) }
        let calls = Calls()
        let walk = Self.record(into: calls)
        #expect(walk.skipped == 0)

        // Each segment's object: the file /proc/self/maps shows at its start (read outside the lock).
        let maps = String(decoding: try #require(ProcessFootprint.readProcBytes("/proc/self/maps")), as: UTF8.self)
        let files: [(range: Range<UInt>, path: Substring)] = maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            let bounds = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
            let path = fields.count == 6 ? fields[5].drop { $0 == " " } : ""
            guard bounds.count == 2, path.hasPrefix("/") else { return nil }
            return (bounds[0]..<bounds[1], path)
        }
        var objectsByCall: [Int: Set<Substring>] = [:]
        for index in 0..<calls.segments {
            guard let file = files.first(where: { $0.range.contains(calls.starts[index]) }) else { continue }
            objectsByCall[calls.calls[index], default: []].insert(file.path)
        }
        #expect(calls.callCount > 1, "\(calls.callCount) call(s) for \(Set(objectsByCall.values.flatMap { $0 }).count) objects")
        #expect(objectsByCall.values.allSatisfy { $0.count == 1 }, "calls naming more than one object: \(objectsByCall.values.filter { $0.count > 1 })")
        let crypt = objectsByCall.filter { $0.value.contains { $0.contains("libcrypt.so") } }
        #expect(crypt.count == 1, "calls with libcrypt's segments: \(crypt.keys.sorted())")
    }

    /// A walk over the objects the last walk saw takes their segments from it rather than reading
    /// each object's program headers again (their page, dropped by the release, would fault back
    /// in for every object at every release), and offers the same segments; a load or an unload
    /// since makes the next walk read them all. Each round loads and unloads libBrokenLocale (a
    /// library of glibc's that nothing else here loads) so that its first walk reads; another test
    /// in this process may load an object between the two walks (the loader's counts then
    /// differ), so the round is retried a few times.
    @Test func aWalkOverTheSameObjectsReadsNoProgramHeadersAndOffersTheSameSegments() throws {
        var compared = false
        for _ in 0..<5 where !compared {
            let handle = try #require(dlopen("libBrokenLocale.so.1", RTLD_NOW | RTLD_LOCAL), "dlopen libBrokenLocale.so.1: \(String(cString: dlerror()))")
            dlclose(handle)
            let fresh = Calls(), again = Calls()
            let freshWalk = Self.record(into: fresh)
            let againWalk = Self.record(into: again)
            #expect(freshWalk.headers_read >= fresh.callCount, "\(freshWalk.headers_read) objects' headers read for \(fresh.callCount) offered")
            guard againWalk.loads == freshWalk.loads, againWalk.unloads == freshWalk.unloads else { continue }
            compared = true
            #expect(againWalk.headers_read == 0, "\(againWalk.headers_read) objects' headers read again")
            #expect(again.callCount == fresh.callCount)
            #expect(again.recorded == fresh.recorded)
        }
        #expect(compared, "the loader's counts changed between the two walks of every round")
    }
}
