import Foundation
import Testing
import TestSupport

/// libavformat is opened on first use (Sources/CFFmpegFormat): a run that does not record or read
/// a file never maps it, one that records does, and one that records where the library is missing
/// says which package to install.
@Suite(.timeLimit(.minutes(2))) struct LazyAVFormatTests {
    @Test func loadedOnlyWhenRecording() throws {
        let dir = try TemporaryDirectory()
        let port = Int.random(in: 30000...40000) & ~1
        let plain = try mappedLibraries(["stream", "--size", "320x240", "--rtp", "rtp://127.0.0.1:\(port)"])
        #expect(plain.contains { $0.contains("libavcodec.so") }, "the maps were read: \(plain)")
        #expect(!plain.contains { $0.contains("libavformat.so") })
        let recording = try mappedLibraries(["stream", "--size", "320x240", "--record", dir.file("out.mp4")])
        #expect(recording.contains { $0.contains("libavformat.so") })
    }

    /// The library hidden behind an empty file in a private mount namespace (no real machine lacks
    /// it while its headers built livepush, hence this stand-in).
    @Test func missingLibraryNamesThePackage() throws {
        let dir = try TemporaryDirectory()
        let library = try #require(Self.libavformatPath(), "ldconfig lists no libavformat")
        let command = "mount --bind /dev/null '\(library)' && exec '\(try LivepushBinary.path())' stream --size 320x240 "
            + "--duration 2s --record '\(dir.file("out.mp4"))'"
        let result = try ExternalTool.run("unshare", ["--mount", "sh", "-c", command], timeoutSeconds: 60, check: false)
        let output = result.output + result.errorOutput
        #expect(output.contains("could not load libavformat.so."), "\(output.suffix(1500))")
        #expect(output.contains("install libavformat"), "\(output.suffix(1500))")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
    }

    /// The file names of the libraries `livepush ARGUMENTS` has mapped once it is streaming.
    private func mappedLibraries(_ arguments: [String]) throws -> Set<String> {
        let stream = try BackgroundProcess(try LivepushBinary.path(), arguments)
        defer {
            stream.kill(signal: SIGKILL)
            _ = stream.wait(timeoutSeconds: 10)
        }
        try #require(stream.waitUntil(timeoutSeconds: 20) { stream.output.contains("livepush: streaming") },
                     "did not start: \(stream.errorOutput.suffix(1000))")
        Thread.sleep(forTimeInterval: 1)  // the first frames reach the outputs (a recording opens its file then)
        // Read to the end: /proc files report size 0, so reading by size stops short.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(stream.process.processIdentifier)/maps"))
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line in line.split(separator: "/").last.map(String.init) })
    }

    /// Where the dynamic loader finds libavformat, from `ldconfig -p`.
    static func libavformatPath() -> String? {
        guard let listing = try? ExternalTool.run("ldconfig", ["-p"], timeoutSeconds: 30) else { return nil }
        return listing.output.split(separator: "\n").first { $0.contains("libavformat.so.") }?
            .components(separatedBy: " => ").last.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
