import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer on `testOneInput` with the process's arguments, then exits with its status.
///
/// A fuzz target's `main.swift` calls this last in its top-level code, after its globals are set,
/// since this never returns. SwiftPM points an executable's `main` at that code (`--defsym
/// main=<Module>_main`), which leaves libFuzzer's own `main` unused, so `LLVMFuzzerRunDriver` is
/// the way in. The target still exports its test function as `@_cdecl("LLVMFuzzerTestOneInput")`:
/// libFuzzer's unused `main`, linked whole, refers to it.
public func runLibFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
