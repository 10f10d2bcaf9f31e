import Foundation

extension Process {
    /// Starts the process with stdout and stderr written to new files at `output` and `errors`
    /// (both to `output`, interleaved as written, when `errors` is nil; stdin from /dev/null), then closes this process's own handles to them: the child holds its
    /// copies. Kept open, two descriptors leaked per process started, and a suite that starts
    /// hundreds held over a thousand; with that many, Foundation's `Process.run()` (toolchain 6.3)
    /// reads past its `/proc/self/fd` listing and crashes the test run (swift-corelibs-foundation
    /// pull request 5472).
    func run(writingOutputTo output: URL, errorsTo errors: URL?) throws {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: output)
        defer { try? outputHandle.close() }
        let errorHandle = try errors.map { errors in
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            return try FileHandle(forWritingTo: errors)
        }
        defer { try? errorHandle?.close() }
        standardOutput = outputHandle
        standardError = errorHandle ?? outputHandle
        standardInput = FileHandle.nullDevice
        try run()
    }
}
