import ArgumentParser
import Codec
import Foundation
import MediaCore
import Pipeline
import RTMP
import RTMPClient

/// `livepush stream`'s RTMP destinations: the URLs as users paste them, a key kept out of the URL
/// (and, with --key-file or LIVEPUSH_STREAM_KEY, out of process listings), and the network behaviour knobs.
struct RTMPOptions: ParsableArguments {
    static let keyEnvironmentVariable = "LIVEPUSH_STREAM_KEY"

    @Argument(help: "RTMP/RTMPS URLs to publish to, e.g. rtmp://a.rtmp.youtube.com/live2/KEY (several at once are fine).")
    var urls: [String] = []

    @Option(help: "Stream key for every URL (replaces the key in the URL). Prefer --key-file or \(keyEnvironmentVariable): they stay out of process listings.")
    var key: String?

    @Option(help: "Read the stream key from this file.")
    var keyFile: String?

    @Flag(help: "Lower the encoder bitrate when the link falls behind, and raise it back (with backoff) when it recovers.")
    var adaptiveBitrate = false

    @Option(help: "Media each RTMP output may queue before dropping frames by GOP (e.g. 2s, 1m).")
    var sendQueue: String = "2s"

    @Option(help: "How long to wait for the TCP connect, the handshake and each command's answer.")
    var rtmpTimeout: String = "10s"

    @Option(help: "First wait before reconnecting; doubles (with jitter) up to --reconnect-max-delay.")
    var reconnectDelay: String = "1s"

    @Option(help: "Longest wait between reconnect attempts.")
    var reconnectMaxDelay: String = "30s"

    @Option(help: "Give up after this many failed reconnect attempts (default: never).")
    var reconnectAttempts: Int?

    @Option(help: "PEM file of CA certificates to trust for rtmps:// besides the system trust store (the default), e.g. a private ingest's own CA.")
    var rtmpsCA: String?

    /// One output per URL, announcing the encoder's settings (turned by the capture's rotation) in onMetaData.
    func outputs(encoder settings: VideoEncoderSettings, rotation: VideoRotation) throws -> [RTMPOutput] {
        guard !urls.isEmpty else { return [] }
        if let rtmpsCA, !FileManager.default.isReadableFile(atPath: rtmpsCA) {
            throw ValidationError("--rtmps-ca \(rtmpsCA): no readable file there; give a PEM file of CA certificates")
        }
        let separateKey = try streamKey()
        let timeout = try seconds(rtmpTimeout)
        let stream = RTMPStreamDescription(encoder: settings, rotation: rotation)
        return try urls.map { text in
            var configuration = RTMPOutputConfiguration(url: try RTMPURL(text, streamKey: separateKey), stream: stream)
            configuration.queueMilliseconds = Int(try seconds(sendQueue) * 1000)
            configuration.connectTimeoutSeconds = timeout
            configuration.handshakeTimeoutSeconds = timeout
            configuration.transactionTimeoutSeconds = timeout
            configuration.reconnect = try reconnectPolicy()
            configuration.caCertificatesPath = rtmpsCA
            if adaptiveBitrate {
                configuration.adaptiveBitrate = .init(targetBitsPerSecond: settings.bitrateBitsPerSecond)
            }
            return RTMPOutput(configuration: configuration)
        }
    }

    /// --reconnect-delay, --reconnect-max-delay and --reconnect-attempts, for every output that
    /// reconnects (RTMP and WHIP).
    func reconnectPolicy() throws -> ReconnectPolicy {
        ReconnectPolicy(initialDelaySeconds: try seconds(reconnectDelay), maximumDelaySeconds: try seconds(reconnectMaxDelay),
                        maximumAttempts: reconnectAttempts)
    }

    /// Per RTMP output after the run: drops by kind and capture → socket latency (the bench reads this line).
    func printSendReport(of outputs: [RTMPOutput]) {
        for output in outputs {
            let drops = output.drops
            var line = "  \(output.name): dropped \(drops.nonReference) non-reference, \(drops.reference + drops.key) by GOP, \(drops.audio) audio"
            if let latency = output.sendLatencyNanos {
                line += String(format: "; send latency p50 %.1f ms p99 %.1f ms", Double(latency.p50) / 1e6, Double(latency.p99) / 1e6)
            }
            print(line)
        }
    }

    private func streamKey() throws -> String? {
        if let keyFile {
            return try String(contentsOfFile: keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return key ?? ProcessInfo.processInfo.environment[Self.keyEnvironmentVariable]
    }

    private func seconds(_ text: String) throws -> Double {
        try DurationParser.seconds(parsing: text)
    }
}
