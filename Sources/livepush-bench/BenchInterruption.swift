import Foundation
import Harness
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C or SIGTERM ends every process the bench started, then the bench.
///
/// The peers (nginx, `livepush serve`, aiortc viewers, the namespace's holder) are children of this
/// process, several behind wrappers in process groups of their own (`timeout`), so a signal to the
/// bench alone, or to its terminal's group, would leave them running: an hour's soak stopped early
/// would leave its serve, nginx and viewers behind. The signal is taken on a dispatch queue (not in
/// a handler, where little is safe), every descendant is ended (``ProcessTree/terminate(_:graceSeconds:)``),
/// and the bench exits with 128 + the signal's number, as a shell reports it.
enum BenchInterruption {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Call once, before starting anything.
    static func endDescendantsOnSignal() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("livepush-bench: signal \(number), ending the processes it started\n".utf8))
                for pid in ProcessTree.descendants(of: getpid()) where ProcessTree.isAlive(pid) { ProcessTree.terminate(pid) }
                exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }
}
