import ArgumentParser
import Foundation

/// `livepush stream`'s RTMP destinations: the URLs as users paste them, a key kept out of the URL
/// (and, with --key-file or LIVEPUSH_STREAM_KEY, out of process listings), and the network behaviour knobs.
struct RTMPOptions: ParsableArguments {
    static let keyEnvironmentVariable = "LIVEPUSH_STREAM_KEY"

    @Argument(help: "RTMP/RTMPS or SRT URLs to publish to, e.g. rtmp://a.rtmp.youtube.com/live2/KEY or srt://HOST:PORT?passphrase=…&latency=200 (several at once are fine).")
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

    @Option(help: "Reconnect an RTMP or SRT output whose receiver acknowledged nothing for this long while media was owed (default 5s).")
    var rtmpStallTimeout: String?

    @Option(help: "First wait before reconnecting; doubles (with jitter) up to --reconnect-max-delay.")
    var reconnectDelay: String = "1s"

    @Option(help: "Longest wait between reconnect attempts.")
    var reconnectMaxDelay: String = "30s"

    @Option(help: "Give up after this many failed reconnect attempts (default: never).")
    var reconnectAttempts: Int?

    @Option(help: "PEM file of CA certificates to trust for rtmps:// besides the system trust store (the default), e.g. a private ingest's own CA.")
    var rtmpsCA: String?

    /// The URLs in the order ``outputs(into:)`` makes their outputs: RTMP first, then SRT.
    static func outputOrder<Target>(_ targets: [Target], url: (Target) -> String) -> [Target] {
        targets.filter { !url($0).hasPrefix("srt://") } + targets.filter { url($0).hasPrefix("srt://") }
    }

    /// One `rtmp:` output per RTMP URL (a separate key goes in as a secret reference, never as
    /// text) and one `srt:` output per SRT URL (``SRTURLDraft``), in ``outputOrder``.
    func outputs(into draft: inout ConfigDraft) throws -> [ConfigDraft.Mapping] {
        let srt = try urls.filter { $0.hasPrefix("srt://") }.enumerated().map { index, url in
            try SRTURLDraft.output(url, index: index, timeout: rtmpTimeout, stallTimeout: rtmpStallTimeout, reconnect: reconnect,
                                   adaptiveBitrate: adaptiveBitrate, into: &draft)
        }
        return try rtmpOutputs(urls.filter { !$0.hasPrefix("srt://") }, into: &draft) + srt
    }

    private func rtmpOutputs(_ urls: [String], into draft: inout ConfigDraft) throws -> [ConfigDraft.Mapping] {
        guard !urls.isEmpty else { return [] }
        if let rtmpsCA, !FileManager.default.isReadableFile(atPath: rtmpsCA) {
            throw ValidationError("--rtmps-ca \(rtmpsCA): no readable file there; give a PEM file of CA certificates")
        }
        let separateKey: String?
        if let keyFile {
            separateKey = "file:\(keyFile)"
        } else if let value = key ?? ProcessInfo.processInfo.environment[Self.keyEnvironmentVariable], !value.isEmpty {
            separateKey = draft.secret(value, name: Self.keyEnvironmentVariable)
        } else {
            separateKey = nil
        }
        if separateKey == nil { draft.notes.append("rtmp urls carry their stream keys: keep this file private, or move each key to key: env:NAME") }
        return urls.map { url in
            var rtmp = ConfigDraft.Mapping()
            rtmp.set("url", url)
            rtmp.set("key", separateKey)
            rtmp.set("ca_file", rtmpsCA)
            if adaptiveBitrate { rtmp.set("adaptive_bitrate", "true") }
            rtmp.set("timeout", rtmpTimeout)
            rtmp.set("send_queue", sendQueue)
            rtmp.set("stall_timeout", rtmpStallTimeout)
            rtmp.set("reconnect", reconnect)
            return .output("rtmp", rtmp)
        }
    }

    /// --reconnect-delay, --reconnect-max-delay and --reconnect-attempts, for every output that
    /// reconnects (RTMP and WHIP).
    var reconnect: ConfigDraft.Mapping {
        var mapping = ConfigDraft.Mapping()
        mapping.set("delay", reconnectDelay)
        mapping.set("max_delay", reconnectMaxDelay)
        mapping.set("attempts", reconnectAttempts.map(String.init))
        return mapping
    }
}
