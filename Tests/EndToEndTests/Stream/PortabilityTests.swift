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

    /// The modules that read and write wire and container formats (RTMP and FLV, RTP/RTCP, STUN and
    /// SDP in WebRTC, SRTP, DTLS, MPEG-TS over SRT, congestion-control feedback, MP4, the codecs'
    /// configuration records, the HTTP server).
    static let wireModules = ["RTMP", "RTMPClient", "RTP", "RTPOutput", "WebRTC", "WebRTCTransport", "SRTP", "DTLS",
                              "SRTOutput", "CongestionControl", "Recording", "Codec", "Server"]

    /// A byte order or word size taken from the machine where a wire format is read (issue 25):
    /// in the wire modules, a raw load of a multi-byte integer (`load`, `loadUnaligned`, memory bound
    /// or rebound to one) whose line does not convert it (`UInt32(bigEndian:)`, `.bigEndian`,
    /// `.littleEndian`), NIO's `.host` endianness, and anywhere in Sources, a test of `Int`'s size
    /// (`MemoryLayout<Int>.size == 8`, `Int.bitWidth == 64`) or of the byte order (`_endian(little)`).
    /// A line may keep a native read if it says why: `// portability: native …` (a kernel structure).
    @Test func noWireFormatIsReadInTheMachinesByteOrderOrWordSize() throws {
        let sources = LivepushBinary.repository.appendingPathComponent("Sources")
        let missing = Self.wireModules.filter { !FileManager.default.fileExists(atPath: sources.appendingPathComponent($0).path) }
        #expect(missing.isEmpty, "wire modules not found (renamed? update the list): \(missing)")
        let findings = Self.byteOrderFindings(in: sources)
        #expect(findings.isEmpty, "reads that assume the machine's byte order or word size:\n\(findings.joined(separator: "\n"))")
    }

    /// The scan itself catches what it is for, and lets converted reads pass: a planted module of both.
    @Test func theByteOrderScanCatchesRawReads() throws {
        let directory = try TemporaryDirectory()
        let sources = directory.url.appendingPathComponent("Sources")
        let rtp = sources.appendingPathComponent("RTP"), engine = sources.appendingPathComponent("Engine")
        try FileManager.default.createDirectory(at: rtp, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: engine, withIntermediateDirectories: true)
        let bad = [
            "let ssrc = bytes.load(fromByteOffset: 8, as: UInt32.self)",
            "let sequence = raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)",
            "let words = base.assumingMemoryBound(to: UInt32.self)",
            "pointer.withMemoryRebound(to: UInt64.self, capacity: 1) { $0.pointee }",
            "let length = data.bindMemory(to: Int32.self)",
            "let value: UInt32 = buffer.readInteger(endianness: .host)!",
            "let n = raw.load(as: Int.self)",
        ]
        let good = [
            "let ssrc = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))",
            "let sequence = raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self).bigEndian",
            "let streamID: UInt32 = try buffer.readRequiredInteger(endianness: .little, \"stream id\")",
            "let first = raw.load(as: UInt8.self)",
            "// a comment: bytes.load(as: UInt32.self)",
            "let rtt = raw.loadUnaligned(fromByteOffset: 68, as: UInt32.self) // portability: native: the kernel's tcp_info",
        ]
        try (bad + good).joined(separator: "\n").write(to: rtp.appendingPathComponent("Planted.swift"), atomically: true, encoding: .utf8)
        let wordSize = ["if MemoryLayout<Int>.size == 8 {}", "precondition(Int.bitWidth == 64)", "#if _endian(little)", "#endif"]
        try wordSize.joined(separator: "\n").write(to: engine.appendingPathComponent("Planted.swift"), atomically: true, encoding: .utf8)
        let findings = Self.byteOrderFindings(in: sources)
        let lines = findings.map { $0.split(separator: ":", maxSplits: 2).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        #expect(lines == wordSize.dropLast() + bad, "\(findings)") // Engine before RTP
    }

    /// "path:line: text" for every such read under `sources` (see above).
    static func byteOrderFindings(in sources: URL) -> [String] {
        let multiByte = #"(U?Int(16|32|64)?|Float|Double)\.self"#
        let rawRead = try! Regex(#"\.(load|loadUnaligned)\((fromByteOffset:[^,]*,\s*)?as:\s*"# + multiByte
                                 + #"|\.(assumingMemoryBound|bindMemory|withMemoryRebound)\(to:\s*"# + multiByte
                                 + #"|endianness:\s*\.host"#)
        let converted = try! Regex(#"\((big|little)Endian:|\.(big|little)Endian\b|\.byteSwapped\b"#)
        let wordSize = try! Regex(#"MemoryLayout<U?Int>\.(size|stride|alignment)\s*[=!<>]=?\s*\d|U?Int\.bitWidth\s*[=!<>]=?\s*\d|_endian\("#)
        var findings: [String] = []
        let files = (FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
            .filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let module = file.path.dropFirst(sources.path.count + 1).split(separator: "/").first.map(String.init) ?? ""
            let lines = text.components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                let native = line.contains("// portability: native")
                // A conversion on the line, or on the next when the expression continues there (`.bigEndian`).
                let next = index + 1 < lines.count ? lines[index + 1].trimmingCharacters(in: .whitespaces) : ""
                let isConverted = line.contains(converted) || (next.hasPrefix(".") && next.contains(converted))
                if wireModules.contains(module), line.contains(rawRead), !isConverted, !native {
                    findings.append("\(file.path):\(index + 1): \(code)")
                } else if line.contains(wordSize), !native {
                    findings.append("\(file.path):\(index + 1): \(code)")
                }
            }
        }
        return findings
    }
}

