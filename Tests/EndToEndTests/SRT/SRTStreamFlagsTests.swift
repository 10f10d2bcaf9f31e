import Foundation
import Testing
import TestSupport

/// A positional srt:// URL of `livepush stream` is the `srt:` output a user would write: the
/// passphrase and stream ID as `env:` references, the rest as keys, checked by the same parser.
@Suite struct SRTStreamFlagsTests {
    @Test func printConfigKeepsThePassphraseOut() throws {
        let directory = try TemporaryDirectory()
        let printed = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--print-config", "--size", "640x360",
            "srt://127.0.0.1:9000?streamid=publish:cam/k3y&passphrase=open%20sesame%2042&pbkeylen=24&latency=300", "srt://:9001?mode=listener",
        ], timeoutSeconds: 30).output
        #expect(!printed.contains("sesame") && !printed.contains("k3y"), "\(printed)")
        for line in ["passphrase: env:LIVEPUSH_SRT_PASSPHRASE", "streamid: env:LIVEPUSH_SRT_STREAMID", "pbkeylen: 24", "latency: 300", "mode: listener"] {
            #expect(printed.contains(line), "\(line) in \(printed)")
        }
        let file = directory.file("livepush.yaml")
        try printed.write(toFile: file, atomically: true, encoding: .utf8)
        let checked = try ExternalTool.run(try LivepushBinary.path(), ["check-config", file], timeoutSeconds: 30,
                                           environment: ["LIVEPUSH_SRT_PASSPHRASE": "open sesame 42", "LIVEPUSH_SRT_STREAMID": "publish:cam/k3y"]).output
        #expect(checked.contains("srt: srt → srt://127.0.0.1:9000?streamid=***&passphrase=***&pbkeylen=24&latency=300"), "\(checked)")
        #expect(checked.contains("srt-2: srt → srt://:9001?mode=listener"), "\(checked)")
    }

    @Test(arguments: [
        ("srt://127.0.0.1:9000?passphrase=0123456789&pbkeylen=20", "cameras[0].outputs[0].srt.pbkeylen: pbkeylen '20' must be 16, 24 or 32"),
        ("srt://127.0.0.1:9000?passphrase=short", "cameras[0].outputs[0].srt.passphrase: the SRT passphrase must be 10 to 79 characters (it has 5)"),
        ("srt://127.0.0.1:9000?latency=2", "cameras[0].outputs[0].srt.latency: latency '2' must be whole milliseconds"),
        ("srt://127.0.0.1?latency=200", "srt://127.0.0.1/…: needs a port"),
    ])
    func aBadURLNamesTheField(url: String, expected: String) throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--duration", "1s", url], timeoutSeconds: 30, check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains(expected), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("short'"), "the passphrase is never printed")
    }
}
