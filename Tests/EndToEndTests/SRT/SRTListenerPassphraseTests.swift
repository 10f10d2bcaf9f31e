import Foundation
import Testing
import TestSupport

/// An SRT output in listener mode (`livepush serve`), dialled by the ffmpeg CLI as caller: one with a
/// wrong passphrase is named in the log and counted in `/api/status`; the listener then still takes
/// a caller with the right one.
@Suite(.serialized, .timeLimit(.minutes(2))) struct SRTListenerPassphraseTests {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static let passphrase = "the right passphrase"

    /// The SRT output of `/api/status`.
    static func output(_ serve: ServeUnderTest) throws -> [String: Any] {
        let body = try Curl.body(["\(serve.baseURL)/api/status"])
        guard let status = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let output = ((status["cameras"] as? [[String: Any]])?.first?["outputs"] as? [[String: Any]])?.first else {
            throw Failure(description: "no output in /api/status: \(body)")
        }
        return output
    }

    /// `ffmpeg` dialling the listener and copying what it receives into `path` for `seconds`.
    static func caller(port: Int, passphrase: String, writingTo path: String, seconds: Int) throws -> ExternalTool.Result {
        // ffmpeg takes the passphrase as written (no percent-decoding), as SRTPeers' listener does.
        return try ExternalTool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", "srt://127.0.0.1:\(port)?passphrase=\(passphrase)",
                                               "-t", "\(seconds)", "-c", "copy", "-f", "mpegts", "-y", path],
                                    timeoutSeconds: Double(seconds + 15), check: false)
    }

    @Test func aCallerWithAWrongPassphraseIsNamedAndCounted() throws {
        let port = try SRTPeers.freePort()
        let serve = try ServeUnderTest(yaml: ServeYAML.config([ServeYAML.camera(
            "cam0", size: "320x240", fps: 15, encoder: "{bitrate: 300k, preset: ultrafast, keyint: 1s}",
            outputs: ["srt: {url: 'srt://127.0.0.1:\(port)?mode=listener', passphrase: env:SRT_PASSPHRASE}"])]), environment: ["SRT_PASSPHRASE": Self.passphrase])
        let refused = try Self.caller(port: port, passphrase: "a wrong passphrase", writingTo: serve.directory.file("refused.ts"), seconds: 2)
        #expect(refused.status != 0, "libsrt refuses the caller: \(refused.errorOutput)")

        var rejected: [String: Any]?
        for _ in 0..<40 {
            let output = try Self.output(serve)
            if ((output["srt"] as? [String: Any])?["callersRejected"] as? Int ?? 0) >= 1 {
                rejected = output
                break
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
        let output = try #require(rejected, "the rejected caller is counted: \(serve.process.errorOutput.suffix(1500))")
        #expect((output["srt"] as? [String: Any])?["callersRejected"] as? Int == 1)
        let lastError = output["lastError"] as? String ?? ""
        #expect(lastError.contains("an SRT caller from 127.0.0.1:") && lastError.contains("was rejected: wrong passphrase")
                && lastError.contains("set the same passphrase on both sides"), "\(lastError)")
        let log = serve.process.errorOutput
        let line = log.split(separator: "\n").first { $0.contains("was rejected: wrong passphrase") }
        #expect(line?.contains("an SRT caller from 127.0.0.1:") == true, "the log names the caller: \(log.suffix(1500))")
        print("SRT rejection line: \(line ?? "none")")
        #expect(!log.contains("a wrong passphrase") && !log.contains(Self.passphrase), "no passphrase in the log")

        // The listener still takes the right caller.
        let path = serve.directory.file("received.ts")
        let received = try Self.caller(port: port, passphrase: Self.passphrase, writingTo: path, seconds: 3)
        #expect(received.status == 0, "\(received.errorOutput)")
        #expect(try SRTPeers.codecs(of: path)["video"] == "h264")
        let after = try Self.output(serve)
        #expect((after["srt"] as? [String: Any])?["callersRejected"] as? Int == 1, "the right caller is not counted: \(after)")
        let metrics = try Curl.body(["\(serve.baseURL)/metrics"])
        let counted = metrics.split(separator: "\n").first { $0.hasPrefix("livepush_srt_callers_rejected_total{") }
        #expect(counted?.hasSuffix(" 1") == true, "/metrics counts the rejected caller: \(counted ?? "no livepush_srt_callers_rejected_total")")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1500))")
    }
}
