import Foundation
import FuzzChecks
import FuzzCore
import Testing

/// Every input of every fuzz corpus (`Fuzz/Corpus/<Target>/`) through the check its fuzz target
/// runs (FuzzChecks, the same function libFuzzer calls), in every `make test`: the regression check
/// `make fuzz-replay` gives, without the sanitized build. Where the fuzz target would crash on an
/// input, the test records an issue naming the file and the target. A trap in a parser still
/// crashes the test process, as it would the fuzzer.
@Suite struct FuzzCorpusReplayTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")
    static let corpora = fuzz.appendingPathComponent("Corpus")

    /// The folders below `directory` that hold a file `marker` (any folder when nil), by name.
    static func folders(in directory: URL, holding marker: String? = nil) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return Set(names.filter { name in
            var isDirectory: ObjCBool = false
            let path = directory.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
            return marker.map { FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).appendingPathComponent($0).path) } ?? true
        })
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func corpusPassesItsTarget(_ name: String) throws {
        let target = try #require(FuzzTarget.all.first { $0.name == name })
        let directory = Self.corpora.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!files.isEmpty, "Fuzz/Corpus/\(name) has no inputs: add seeds (scripts/fuzz-seeds)")
        for file in files {
            let input = try [UInt8](Data(contentsOf: directory.appendingPathComponent(file)))
            do {
                try target.check(input)
            } catch {
                Issue.record("Fuzz/Corpus/\(name)/\(file) breaks \(name): \(error)")
            }
        }
    }

    /// Every fuzz target has a corpus, a check in FuzzTarget.all and a place in Package.swift, and
    /// every corpus a target, so no target is left out of this replay (or of `make fuzz`).
    @Test func everyTargetHasACorpusAndEveryCorpusATarget() throws {
        let targets = Self.folders(in: Self.fuzz, holding: "main.swift")
        let corpora = Self.folders(in: Self.corpora)
        let checks = Set(FuzzTarget.all.map(\.name))
        #expect(targets.count >= 13, "found only \(targets.sorted()) in \(Self.fuzz.path)")
        for name in targets.subtracting(corpora).sorted() { Issue.record("Fuzz/\(name) has no corpus Fuzz/Corpus/\(name)") }
        for name in corpora.subtracting(targets).sorted() { Issue.record("Fuzz/Corpus/\(name) has no target Fuzz/\(name)/main.swift") }
        for name in targets.subtracting(checks).sorted() { Issue.record("Fuzz/\(name) has no check in FuzzTarget.all (Fuzz/FuzzChecks/All)") }
        for name in checks.subtracting(targets).sorted() { Issue.record("FuzzTarget.all's \(name) has no Fuzz/\(name)/main.swift") }
        let manifest = try String(contentsOf: Self.fuzz.deletingLastPathComponent().appendingPathComponent("Package.swift"), encoding: .utf8)
        for name in targets.sorted() where !manifest.contains("\"\(name)\"") {
            Issue.record("Fuzz/\(name) is not in Package.swift's list of fuzzers")
        }
    }
}
