import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// A host name with an IPv6 and an IPv4 address, the server listening on 127.0.0.1 only: what
    /// `localhost` is on an installed Debian (its /etc/hosts names ::1 too). NIO tries ::1 first and
    /// is refused; the IPv4 attempt that connects must carry the stream (once the refused attempt
    /// took the session and the connecting one was closed, so it never published). This machine's
    /// /etc/hosts may not list ::1, so livepush runs in a private mount namespace with one that does.
    @Test func publishesToANameWhoseIPv6AddressRefuses() throws {
        let nginx = try NginxRTMPServer()
        let dir = try TemporaryDirectory()
        let hosts = dir.file("hosts")
        try "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n".write(toFile: hosts, atomically: true, encoding: .utf8)
        let wrapper = [try ExternalTool.require("unshare"), "--mount", "sh", "-c", #"mount --bind "$0" /etc/hosts && exec "$@""#, hosts]

        let resolved = try ExternalTool.run(wrapper[0], Array(wrapper.dropFirst()) + ["getent", "ahosts", "localhost"]).output
        #expect(resolved.contains("::1") && resolved.contains("127.0.0.1"), "localhost should name both addresses here: \(resolved)")

        let livepush = try Self.stream(["rtmp://localhost:\(nginx.port)/live/key"], seconds: 4, wrapper: wrapper)
        let log = try Self.finish(livepush, within: 45)
        #expect(log.contains("0 dropped, 0 reconnects"), "\(log.suffix(800))")
        let recording = try #require(nginx.recordings.first, "nothing arrived: \(log.suffix(1500))")
        let run = try #require(RunCounts(summary: log, output: ":\(nginx.port)/"), "\(log.suffix(800))")
        try Self.expectValidStream(recording, minimumSeconds: 3.5, maximumSeconds: 4.5, run: run)
    }
}
