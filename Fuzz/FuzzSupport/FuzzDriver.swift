import CLibFuzzer
import FuzzCore

#if canImport(Glibc)
import Glibc
#endif

/// The target libFuzzer runs (set once by ``runLibFuzzer(_:)``, before libFuzzer starts).
nonisolated(unsafe) private var runningTarget: FuzzTarget?

/// libFuzzer's per-input entry: `target`'s check, with a broken invariant turned into a trap, which
/// libFuzzer records as a crash with the input that caused it. Exported under libFuzzer's name,
/// since libFuzzer's own unused `main`, linked whole, refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // libFuzzer may pass a null pointer with a size of 0.
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try runningTarget!.check(input)
    } catch {
        fatalError(error.description)
    }
    return 0
}

/// Runs libFuzzer on `target`'s check with the process's arguments, then exits with its status.
///
/// A fuzz target's `main.swift` is only this call. SwiftPM points an executable's `main` at the
/// module's top-level code (`--defsym main=<Module>_main`), which leaves libFuzzer's own `main`
/// unused, so `LLVMFuzzerRunDriver` is the way in.
public func runLibFuzzer(_ target: FuzzTarget) -> Never {
    runningTarget = target
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
}
