import ArgumentParser
import Config
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

    @Option(help: "Publish to a streaming service's ingest (youtube or twitch) with the stream key of --key, --key-file or \(keyEnvironmentVariable): its RTMPS URL, and its rules on keyframes, profile and bitrate checked (the rtmp output's `preset:`). With RTMP URLs given, applies to each.")
    var rtmpPreset: String?

    @Flag(help: "Lower the encoder bitrate when an RTMP or SRT link falls behind, or (with --web) a viewer's estimate is lower, and raise it back (with backoff) when it recovers. Off by default, as in a config file: the encoder is shared, so one slow destination would lower what every other one gets.")
    var adaptiveBitrate = false

    @Option(help: "Media each RTMP output may queue before dropping frames by GOP (e.g. 2s, 1m; default 2s).")
    var sendQueue: String?

    @Option(help: "How long to wait for the TCP connect, the handshake and each command's answer (default 10s; SRT's connect: 3s).")
    var rtmpTimeout: String?

    @Option(help: "Reconnect an RTMP or SRT output whose receiver acknowledged nothing for this long while media was owed (default 5s).")
    var rtmpStallTimeout: String?

    @Option(help: "After an RTMP or SRT output's own connection is lost, retry every 250 ms for this long while the server refuses the key (SRT: the stream ID) as still in use (its old session not yet dropped), instead of backing off (default 60s; off turns it off).")
    var rtmpInUseRetry: String?

    @Option(help: ArgumentHelp("A backup ingest (repeat for several, in order): an rtmp:// one for the RTMP URL, an srt://HOST:PORT one for the SRT URL, whose stream key (RTMP, unless the backup names its own) or streamid and passphrase (SRT) it takes. With --backup-mode failover (the default) the stream moves there on a stall or error, and back once the primary has been reachable for 10s. Needs exactly one URL of its kind.", valueName: "url"))
    var backup: [String] = []

    @Option(help: ArgumentHelp("What the --backup ingests are for: failover (one at a time, the default) or both (publish to the primary and every backup at once from the same encode, each its own output with its own queue and reconnect, as YouTube recommends).", valueName: "mode"))
    var backupMode: String?

    @Option(help: ArgumentHelp("Send these --rendition names, top first, as the video tracks of one enhanced-RTMP connection to each RTMP URL (multitrack, as Twitch's Enhanced Broadcasting takes it), e.g. hd,sd,ld. A server that does not announce multitrack gets the first alone.", valueName: "names"))
    var rtmpTracks: String?

    @Option(help: "First wait before reconnecting; doubles (with jitter) up to --reconnect-max-delay (default 1s).")
    var reconnectDelay: String?

    @Option(help: "Longest wait between reconnect attempts (default 30s).")
    var reconnectMaxDelay: String?

    @Option(help: "Give up after this many failed reconnect attempts (default: never).")
    var reconnectAttempts: Int?

    @Option(help: "PEM file of CA certificates to trust for rtmps:// besides the system trust store (the default), e.g. a private ingest's own CA.")
    var rtmpsCA: String?

    /// `--rtmp-preset` without an RTMP URL: one output to the service's ingest, made first.
    var addsPresetOutput: Bool { rtmpPreset != nil && urls.allSatisfy { $0.hasPrefix("srt://") } }

    /// The URLs in the order ``outputs(into:)`` makes their outputs: RTMP first, then SRT.
    static func outputOrder<Target>(_ targets: [Target], url: (Target) -> String) -> [Target] {
        targets.filter { !url($0).hasPrefix("srt://") } + targets.filter { url($0).hasPrefix("srt://") }
    }

    /// One `rtmp:` output per RTMP URL (a separate key goes in as a secret reference, never as
    /// text) and one `srt:` output per SRT URL (``SRTURLDraft``), in ``outputOrder``.
    func outputs(into draft: inout ConfigDraft) throws -> [ConfigDraft.Mapping] {
        if backupMode != nil, backup.isEmpty { throw ValidationError("--backup-mode says what the --backup ingests are for: give one or more --backup URL") }
        if let backupMode, BackupMode(rawValue: backupMode) == nil {
            throw ValidationError("--backup-mode '\(backupMode)' is not one of \(BackupMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let srtURLs = urls.filter { $0.hasPrefix("srt://") }
        if !srtBackups.isEmpty, srtURLs.count != 1 {
            throw ValidationError("an srt:// --backup belongs to one SRT URL; with several, write a config file with backup: on each srt output")
        }
        if srtBackups.contains(where: { $0.contains("?") }) {
            throw ValidationError("an srt:// --backup is HOST:PORT and takes the SRT URL's settings; for its own streamid or passphrase, write a config file")
        }
        let srt = try srtURLs.enumerated().map { index, url in
            try SRTURLDraft.output(url, index: index, timeout: rtmpTimeout, stallTimeout: rtmpStallTimeout, inUseRetry: rtmpInUseRetry, reconnect: reconnect,
                                   adaptiveBitrate: adaptiveBitrate, backups: srtBackups, backupMode: backupMode, into: &draft)
        }
        return try rtmpOutputs(urls.filter { !$0.hasPrefix("srt://") }, into: &draft) + srt
    }

    /// The --backup URLs for the SRT URL; the others are for the RTMP URL.
    private var srtBackups: [String] { backup.filter { $0.hasPrefix("srt://") } }
    private var rtmpBackups: [String] { backup.filter { !$0.hasPrefix("srt://") } }

    private func rtmpOutputs(_ urls: [String], into draft: inout ConfigDraft) throws -> [ConfigDraft.Mapping] {
        // A preset alone is one output to the service's own ingest URL (the parser fills it in).
        let urls: [String?] = addsPresetOutput ? [nil] : urls
        if urls.isEmpty, rtmpTracks != nil { throw ValidationError("--rtmp-tracks sends renditions as tracks of an RTMP connection: give an rtmp:// URL") }
        guard !urls.isEmpty else { return [] }
        if !rtmpBackups.isEmpty, urls.count != 1 {
            throw ValidationError("--backup belongs to one RTMP URL; with several, write a config file with backup: on each rtmp output")
        }
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
        if separateKey == nil, rtmpPreset == nil {
            draft.notes.append("rtmp urls carry their stream keys: keep this file private, or move each key to key: env:NAME")
        }
        return urls.map { url in
            var rtmp = ConfigDraft.Mapping()
            rtmp.set("url", url)
            rtmp.set("preset", rtmpPreset)
            rtmp.set("key", separateKey)
            rtmp.set("ca_file", rtmpsCA)
            if adaptiveBitrate { rtmp.set("adaptive_bitrate", "true") }
            rtmp.set("timeout", rtmpTimeout)
            rtmp.set("send_queue", sendQueue)
            rtmp.set("stall_timeout", rtmpStallTimeout)
            rtmp.set("in_use_retry", rtmpInUseRetry)
            rtmp.set("reconnect", reconnect)
            rtmp.set("backup", strings: rtmpBackups)
            if !rtmpBackups.isEmpty { rtmp.set("backup_mode", backupMode) }
            rtmp.set("renditions", strings: trackNames)
            return .output("rtmp", rtmp)
        }
    }

    /// --rtmp-tracks split at the commas; the config checks the names (`renditions:` on an rtmp output).
    private var trackNames: [String] {
        rtmpTracks.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
    }

    /// --reconnect-delay, --reconnect-max-delay and --reconnect-attempts, for every output that
    /// reconnects (RTMP, SRT and WHIP); only those given, the others keep the config's defaults.
    var reconnect: ConfigDraft.Mapping {
        var mapping = ConfigDraft.Mapping()
        mapping.set("delay", reconnectDelay)
        mapping.set("max_delay", reconnectMaxDelay)
        mapping.set("attempts", reconnectAttempts.map(String.init))
        return mapping
    }
}
