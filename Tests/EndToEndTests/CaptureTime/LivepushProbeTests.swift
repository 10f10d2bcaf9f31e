import Foundation
import Harness
import Testing
import TestSupport

/// `livepush probe` plays back what the real `livepush stream` publishes, through nginx-rtmp and
/// through an SRT relay (srt-live-transmit), and reads the glass-to-glass latency from the
/// capture-time SEI (docs/capture-time.md).
@Suite(.serialized, .timeLimit(.minutes(3))) struct LivepushProbeTests {
    /// How long the probe measures, and the publisher's head start and margin around it.
    static let probeSeconds = 3, publishSeconds = 12

    /// One per-second line of `--json`.
    struct Second {
        var frames: Int
        var minimum, median, maximum: Double
    }

    /// `livepush probe URL --json` for ``probeSeconds``, waiting at most `timeoutSeconds` for the
    /// stream: its exit status, seconds and whole output.
    static func probe(_ url: String, timeoutSeconds: Int = 4) throws -> (status: Int32?, seconds: [Second], output: String) {
        let probe = try BackgroundProcess(try LivepushBinary.path(), ["probe", url, "--duration", "\(probeSeconds)s", "--timeout", "\(timeoutSeconds)s", "--json"])
        let status = probe.wait(timeoutSeconds: Double(30 + timeoutSeconds))
        let seconds = probe.output.split(separator: "\n").compactMap { line -> Second? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["second"] != nil,
                  let frames = object["frames"] as? Int, let minimum = object["min_ms"] as? Double,
                  let median = object["median_ms"] as? Double, let maximum = object["max_ms"] as? Double else { return nil }
            return Second(frames: frames, minimum: minimum, median: median, maximum: maximum)
        }
        return (status, seconds, probe.output + probe.errorOutput)
    }

    /// `livepush stream --capture-time captureTime` into nginx-rtmp, probed once nginx records its media.
    static func probeThroughNginx(captureTime: String) throws -> (status: Int32?, seconds: [Second], output: String) {
        let nginx = try NginxRTMPServer(recording: .video)
        let livepush = try LivepushStreamTests.stream([nginx.url(key: captureTime)], seconds: publishSeconds, extra: ["--capture-time", captureTime])
        defer { livepush.kill(signal: SIGTERM) }
        try #require(nginx.waitUntilPublishing(key: captureTime), "livepush never published: \(livepush.errorOutput.suffix(1500))")
        return try probe(nginx.url(key: captureTime))
    }

    /// Every second has frames and every latency lies in `bounds` (milliseconds).
    static func expectLatencies(_ result: (status: Int32?, seconds: [Second], output: String), within bounds: Range<Double>) {
        #expect(result.status == 0, "\(result.output.suffix(1500))")
        #expect(result.seconds.count >= 2, "\(result.output.suffix(1500))")
        for second in result.seconds {
            #expect(second.frames > 0)
            #expect(bounds.contains(second.minimum) && bounds.contains(second.maximum), "\(second) outside \(bounds) ms")
            #expect(second.minimum <= second.median && second.median <= second.maximum)
        }
    }

    /// Through nginx-rtmp: above zero (the frame was captured before it arrived) and below one
    /// keyframe interval (2 s). Nothing on the loopback path buffers, so a figure that large would
    /// mean frames held back, or stamps that are not capture times.
    @Test func readsTheLatencyThroughNginx() throws {
        let result = try Self.probeThroughNginx(captureTime: "sei")
        Self.expectLatencies(result, within: 0..<(LivepushStreamTests.keyint * 1000))
        #expect(result.seconds.reduce(0) { $0 + $1.frames } >= Self.probeSeconds * 30 / 2, "\(result.output.suffix(1500))")
    }

    /// Published without it, the probe says so and fails.
    @Test func failsClearlyWithoutCaptureTimes() throws {
        let result = try Self.probeThroughNginx(captureTime: "none")
        #expect(result.status == 1, "\(result.output.suffix(1500))")
        #expect(result.output.contains("the stream carries no capture-time SEI: publish it with capture_time: sei"), "\(result.output.suffix(1500))")
        #expect(result.seconds.isEmpty)
    }

    /// Through an SRT relay, each hop holds every packet for its SRT latency before delivering it
    /// (TSBPD): with 300 ms on both hops, every frame is at least 600 ms late, and less than a
    /// keyframe interval more.
    @Test func readsTheLatencyThroughAnSRTRelay() throws {
        let (inPort, outPort) = (try SRTPeers.freePort(), try SRTPeers.freePort())
        let relay = try BackgroundProcess("timeout", ["-k", "2", "60", try ExternalTool.require("srt-live-transmit"), "-q", "-a:no",
                                                      "srt://:\(inPort)?mode=listener", "srt://:\(outPort)?mode=listener"])
        defer { relay.kill(signal: SIGTERM) }
        #expect(UDPPortWait.waitUntilBound([inPort], by: relay), "srt-live-transmit never listened: \(relay.errorOutput.suffix(800))")
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(inPort)?latency=300"], seconds: Self.publishSeconds)
        defer { livepush.kill(signal: SIGTERM) }
        try #require(livepush.waitForOutput(containing: "SRT connected", timeoutSeconds: 30), "livepush never connected: \(livepush.errorOutput.suffix(1500))")
        // FFmpeg's libsrt takes the latency in microseconds.
        let result = try Self.probe("srt://127.0.0.1:\(outPort)?latency=300000")
        Self.expectLatencies(result, within: 600..<(600 + LivepushStreamTests.keyint * 1000))
    }
}
