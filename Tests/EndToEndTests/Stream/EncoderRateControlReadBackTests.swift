import Config
import Foundation
import Testing
import TestSupport

/// `stream`'s `--maxrate`, `--bufsize`, `--tune`, `--threads` and the same keys on a `--rendition`:
/// the printed config parses back to them, bad values are refused naming the config key, and a real
/// run shows them in each rendition's stream, where libx264 writes its options as an SEI string.
@Suite(.serialized, .timeLimit(.minutes(3))) struct EncoderRateControlReadBackTests {
    @Test func flagsPrintAConfigThatParsesBack() throws {
        let printed = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--print-config", "--size", "1280x720", "--bitrate", "2M", "--maxrate", "3M", "--bufsize", "0.5s", "--tune", "film",
            "--threads", "2", "--rendition", "hd=1280x720", "--rendition", "sd=640x360:800k,maxrate=1M,bufsize=400k,tune=none,threads=1",
            "--record", "/tmp/never.mp4",
        ], timeoutSeconds: 30).output
        let camera = try #require(try ConfigParser(file: "printed").parse(printed).cameras.first)
        #expect(camera.encoder.maxBitrateBitsPerSecond == 3_000_000 && camera.encoder.bufferSize == .seconds(0.5), "\(printed)")
        let settings = camera.effectiveRenditions.map(\.encoderSettings)
        #expect(settings.map(\.maxBitrateBitsPerSecond) == [3_000_000, 1_000_000], "\(printed)")
        #expect(settings.map(\.bufferSizeBits) == [1_000_000, 400_000], "\(printed)")
        #expect(settings.map(\.tune) == ["film", nil] && settings.map(\.threads) == [2, 1], "\(printed)")
        let plain = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config", "--record", "/tmp/never.mp4"], timeoutSeconds: 30).output
        for key in ConfigParser.rateControlKeys { #expect(!plain.contains("\(key):"), "no \(key) without its flag: \(plain)") }
    }

    @Test(arguments: [
        (["--threads", "99"], "cameras[0].encoder.threads: '99' must be 0 (the encoder decides) … 64"),
        (["--bufsize", "500ms"], "cameras[0].encoder.bufsize: '500ms' is not a buffer size; write bits like 1M or 800k, or a time like 0.5s"),
        (["--bitrate", "2M", "--maxrate", "1M"], "cameras[0].encoder.maxrate: '1000000' for auto: must be at least the bitrate 2000000"),
        (["--rendition", "hd=640x360,colour=red"], "--rendition 'hd=640x360,colour=red': 'colour=red' must be KEY=VALUE with KEY one of maxrate, bufsize, tune, threads"),
        (["--rendition", "hd=640x360,tune=filmm"], "cameras[0].renditions[0].tune: 'filmm' for libx264: libx264 tunes are"),
    ])
    func badFlagsFailNamingTheKey(flags: [String], expected: String) throws {
        let (result, recorded) = try LivepushBinary.refusedStream(["--size", "640x360"] + flags)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains(expected), "\(result.errorOutput)")
        #expect(!recorded)
    }

    /// Two renditions with different values, each recorded: x264's own account of its options (in
    /// kbit/s and kbit) shows the peak rate, the buffer, the threads and the tune each encoder ran with.
    /// zerolatency shows as no lookahead and no macroblock tree; film as its deblocking offsets. 3 and
    /// 1 threads are not what libx264 picks by itself on a 2- or 4-core machine.
    @Test func eachRenditionsEncoderRunsWithItsValues() throws {
        let dir = try TemporaryDirectory()
        let run = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--size", "640x360", "--fps", "30", "--encoder", "libx264", "--bitrate", "1M", "--maxrate", "1500k", "--bufsize", "0.5s",
            "--threads", "3", "--duration", "3s", "--rendition", "hd=640x360",
            "--rendition", "sd=320x180:400k,maxrate=600k,bufsize=200k,threads=1,tune=film",
            "--record", "hd=\(dir.file("hd.mp4"))", "--record", "sd=\(dir.file("sd.mp4"))",
        ], timeoutSeconds: 60, check: false)
        #expect(run.status == 0, "livepush exited \(run.status): \(run.errorOutput.suffix(2000))")
        let hd = try x264Options(in: dir.file("hd.mp4"))
        let sd = try x264Options(in: dir.file("sd.mp4"))
        let expected: [(name: String, options: [String: String], actual: [String: String])] = [
            ("hd", ["vbv_maxrate": "1500", "vbv_bufsize": "500", "threads": "3", "rc_lookahead": "0", "mbtree": "0", "deblock": "1:0:0"], hd),
            ("sd", ["vbv_maxrate": "600", "vbv_bufsize": "200", "threads": "1", "mbtree": "1", "deblock": "1:-1:-1"], sd),
        ]
        for rendition in expected {
            for (key, value) in rendition.options {
                #expect(rendition.actual[key] == value, "\(rendition.name): \(key)=\(rendition.actual[key] ?? "absent"), want \(value): \(rendition.actual)")
            }
        }
    }

    /// The `key=value` options of the first x264 version SEI in the file ("x264 - core … options: …"):
    /// ASCII in the SEI payload, so a scan of the bytes finds it without demuxing.
    private func x264Options(in path: String) throws -> [String: String] {
        let bytes = try FFmpegCLI.bytes(of: path)
        let marker = Array("x264 - core".utf8)
        let start = try #require(bytes.indices.dropLast(marker.count).first { bytes[$0..<$0 + marker.count].elementsEqual(marker) },
                                 "no x264 SEI in \(path) (\(bytes.count) bytes)")
        let end = bytes[start...].firstIndex(of: 0) ?? bytes.endIndex
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        let options = try #require(text.range(of: "options: ").map { text[$0.upperBound...] }, "no options in \(text)")
        return Dictionary(options.split(separator: " ").compactMap { field in
            let pair = field.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
    }
}
