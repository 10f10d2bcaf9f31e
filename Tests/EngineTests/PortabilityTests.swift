import Foundation
import Testing
import TestSupport

/// ARM64 on paper (issue 14): nothing in the sources, scripts or build names an x86-only intrinsic,
/// compiler flag or library path, so the same tree builds on a Raspberry Pi.
@Suite struct PortabilityTests {
    @Test func noX86OnlyCodeFlagsOrPaths() throws {
        let root = LivepushBinary.repository
        let patterns = ["x86_64-linux-gnu", "-march=", "-mavx", "-msse", "immintrin.h", "emmintrin.h", "xmmintrin.h", "_mm_", "__x86_64__", "arch(x86_64)"]
        var findings: [String] = []
        for top in ["Sources", "scripts", "deploy", "Package.swift", "Makefile"] {
            let base = root.appendingPathComponent(top)
            var files = [base]
            if let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) {
                files = walker.compactMap { $0 as? URL }
            }
            for file in files where ["swift", "c", "h", "sh", "service", "yaml", "", "modulemap"].contains(file.pathExtension) {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                for pattern in patterns where text.contains(pattern) { findings.append("\(file.path): \(pattern)") }
            }
        }
        #expect(findings.isEmpty, "x86-only: \(findings)")
    }
}
