import Foundation

/// The `livepush` binary the benchmarks measure: the one built beside this executable (the same
/// `swift build` products directory), so a benchmark always runs the build it came with.
enum LivepushExecutable {
    static let path: String = {
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return own.deletingLastPathComponent().appendingPathComponent("livepush").path
    }()
}
