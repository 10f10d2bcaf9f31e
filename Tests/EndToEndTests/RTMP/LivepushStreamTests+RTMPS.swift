import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// rtmps:// to nginx's stream module terminating TLS in front of nginx-rtmp, with a certificate from a
    /// test CA: trusted through --rtmps-ca, the stream arrives and plays; without it (only the system trust
    /// store), the certificate cannot be verified and livepush says so, and what to do, instead of publishing.
    @Test func publishesOverRTMPSVerifyingTheCertificate() throws {
        let ca = try TestCertificateAuthority()
        let nginx = try NginxRTMPServer(tls: ca)
        let tlsPort = try #require(nginx.tlsPort)
        let url = "rtmps://localhost:\(tlsPort)/live/key"

        let trusted = try Self.stream([url], seconds: 5, extra: ["--audio", "tone", "--rtmps-ca", ca.caCertificatePath])
        let log = try Self.finish(trusted, within: 45)
        #expect(log.contains("0 dropped, 0 reconnects"), "\(log.suffix(800))")
        let recording = try #require(nginx.recordings.first, "nothing arrived through TLS: \(log.suffix(800))")
        // Against livepush's own counts: frames a busy machine dropped before the encoder are allowed for.
        let run = try #require(RunCounts(summary: log, output: ":\(tlsPort)/"), "\(log.suffix(800))")
        try Self.expectValidStream(recording, minimumSeconds: 4.5, maximumSeconds: 5.5, run: run)
        try Self.expectAACAudio(recording)

        let untrusted = try Self.stream([url], seconds: 3)
        let refused = try Self.finish(untrusted, within: 45)
        let summary = try #require(refused.split(separator: "\n").first { $0.contains("rtmps:") && $0.contains("last error:") },
                                   "no error in the summary: \(refused.suffix(800))")
        #expect(summary.contains("certificate could not be verified") && summary.contains("--rtmps-ca"), "\(summary)")
        #expect(summary.contains(" 0 frames"), "\(summary)")
        #expect(nginx.recordings.count == 1, "published without a verified certificate")
    }
}
