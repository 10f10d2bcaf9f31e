import Foundation
import RTMP
import Testing
import TestSupport

extension LivepushStreamTests {
    /// nginx-rtmp drops a publisher that sent nothing for this long (`drop_idle_publisher`).
    static let dropIdlePublisherSeconds = 5
    /// livepush calls the stall well before nginx lets go, so its reconnects find the key still held.
    static let inUseStallTimeoutSeconds = 2

    /// A freezing proxy in front of nginx-rtmp with `drop_idle_publisher 5s`, and livepush with a
    /// 2 s stall timeout and the default backoff (1 s, doubling). livepush calls the stall; nginx
    /// refuses its reconnects ("Already publishing") until it drops the frozen session, which the
    /// proxy sees as nginx closing the frozen connection. livepush retries every 250 ms meanwhile,
    /// says so in `/api/status` and its log, and its publish is accepted on the first or second
    /// attempt after nginx let go; media then reaches nginx on the new connection. The time from
    /// nginx letting go to the accepted publish and to the first video is printed.
    @Test func aKeyStillHeldAfterOurStallIsTakenBackAsSoonAsTheServerLetsGo() throws {
        let nginx = try NginxRTMPServer(dropIdlePublisherSeconds: Self.dropIdlePublisherSeconds)
        let proxy = try StallingProxy(to: nginx.port)
        defer { proxy.close() }
        let serve = try LivepushServe(directory: try TemporaryDirectory(), cameras: """
          - id: cam0
            source: testpattern
            size: 320x240
            fps: 30
            encoder: {bitrate: 500k, keyint: 1s, preset: ultrafast}
            outputs:
              - rtmp: {url: rtmp://127.0.0.1:\(proxy.port)/live, key: held, stall_timeout: \(Self.inUseStallTimeoutSeconds)s}
        """)
        defer { serve.close() }
        let output = { serve.output("rtmp") ?? [:] }
        #expect(serve.process.waitUntil(timeoutSeconds: 20) {
            proxy.acknowledgementsForwarded > 0 && output()["health"] as? String == "healthy"
        }, "\(serve.process.errorOutput.suffix(1500))")

        proxy.stall()
        var reasons: Set<String> = []
        let dropped = serve.process.waitUntil(timeoutSeconds: Double(Self.dropIdlePublisherSeconds) + 10) {
            if let reason = output()["stateReason"] as? String { reasons.insert(reason) }
            return proxy.frozenSessionDropped != nil
        }
        try #require(dropped, "nginx never closed the frozen session: \(proxy.publishes); \(serve.process.errorOutput.suffix(1500))")
        let letGo = try #require(proxy.frozenSessionDropped)
        // The tries after the freeze (the first connection is the frozen one).
        let accepted = { (publishes: [StallingProxy.Publish]) in publishes.dropFirst().first { $0.isAccepted && $0.firstVideo != nil } }
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { accepted(proxy.publishes) != nil },
                "let go at \(letGo): \(proxy.publishes); \(serve.process.errorOutput.suffix(1500))")

        let publishes = proxy.publishes
        let refused = publishes.filter(\.isRefused)
        let publish = try #require(accepted(publishes))
        // The tries nginx answered once it had let go: a try opened just before may be the one accepted.
        let answeredAfterLetGo = publishes.dropFirst().filter { $0.isAccepted || ($0.answered.map { $0 >= letGo } ?? true) }
        let attempt = try #require(answeredAfterLetGo.firstIndex { $0.isAccepted }) - answeredAfterLetGo.startIndex
        // The key was held and refused, as nginx-rtmp says it: livepush's own reconnects ran into its frozen session.
        #expect(refused.count >= 2 && refused.allSatisfy { $0.statusCode == RTMPStatus.Code.publishBadName }, "\(publishes)")
        #expect(serve.process.errorOutput.contains("Already publishing"), "\(serve.process.errorOutput.suffix(1500))")
        // Back on the first or second try after nginx let go (a try under way at that moment may still be refused).
        #expect(attempt <= 1, "accepted on try \(attempt + 1) after nginx let go at \(letGo): \(publishes)")
        // While the key was held, livepush waited 250 ms after each refusal before its next try, not the
        // backoff's 0.5–1 s, then 1–2 s, doubling. Measured from nginx's refusal to the next connection's
        // opening, so the time a loaded machine takes for each try's handshake and publish is not counted;
        // twice the 250 ms is allowed for the timer and the connect.
        let tries = publishes.dropFirst()
        let waits = zip(tries, tries.dropFirst()).compactMap { attempt, next in attempt.isRefused ? attempt.answered.map { next.opened - $0 } : nil }
        let wait = waits.reduce(.zero, +) / Double(max(1, waits.count))
        #expect(!waits.isEmpty && wait <= .milliseconds(500), "waited \(wait) on average after a refusal: \(publishes)")
        #expect(reasons.contains { $0.hasPrefix("key in use (") && $0.hasSuffix("retrying every 250 ms") }, "\(reasons)")
        #expect(serve.process.errorOutput.contains("key in use, probably by our own lost connection"), "\(serve.process.errorOutput.suffix(1500))")
        #expect(output()["stateReason"] == nil || output()["stateReason"] is NSNull, "publishing again: \(output())")
        let seconds = { (instant: ContinuousClock.Instant?) in instant.map { String(format: "%.3f", Double(($0 - letGo) / .milliseconds(1)) / 1000) } ?? "?" }
        print("back on the air: nginx let go of the frozen session; publish accepted \(seconds(publish.answered)) s later "
              + "(try \(attempt + 1) answered after it, \(refused.count) tries refused while it held the key), first video at nginx "
              + "\(seconds(publish.firstVideo)) s after it")
        #expect(serve.stop() == 0, "serve exits cleanly: \(serve.process.errorOutput.suffix(1500))")
    }
}
