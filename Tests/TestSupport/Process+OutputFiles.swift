import Foundation

extension Process {
    /// Starts the process with stdout and stderr written to new files at `output` and `errors`
    /// (stdin from /dev/null), then closes this process's own handles to them: the child holds its
    /// copies. Kept open, two descriptors leaked per process started, and a suite that starts
    /// hundreds held over a thousand; with that many, Foundation's `Process.run()` (toolchain 6.3)
    /// reads past its `/proc/self/fd` listing and crashes the test run (swift-corelibs-foundation
    /// pull request 5472).
    func run(writingOutputTo output: URL, errorsTo errors: URL) throws {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let handles = (output: try FileHandle(forWritingTo: output), errors: try FileHandle(forWritingTo: errors))
        defer {
            try? handles.output.close()
            try? handles.errors.close()
        }
        standardOutput = handles.output
        standardError = handles.errors
        standardInput = FileHandle.nullDevice
        try run()
    }
}
