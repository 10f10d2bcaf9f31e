import Output

extension ConfigParser {
    /// `backup: [URL, …]`, `backup_mode` and `backup_return_after` on an rtmp or srt output: each
    /// backup checked like `url` and kept as the settings of an output to it (``OutputConfig/backupIngests``).
    func parseBackups(_ map: ConfigMapping, into output: inout OutputConfig) throws(ConfigError) {
        let modeNode = map["backup_mode"]
        if let modeNode {
            output.connection.backupMode = BackupMode(rawValue: try modeNode.choice(BackupMode.allCases.map(\.rawValue))) ?? .failover
        }
        let returnNode = map["backup_return_after"]
        output.connection.backupReturnAfterSeconds = try returnNode.map { node throws(ConfigError) in try duration(node) }
        guard let node = map["backup"] else {
            if let modeNode { throw modeNode.error("backup_mode needs backup: [URL, …], the ingests besides url") }
            if let returnNode { throw returnNode.error("backup_return_after needs backup: [URL, …], the ingests besides url") }
            return
        }
        if output.connection.backupMode == .both, let returnNode {
            throw returnNode.error("backup_return_after is for backup_mode: failover; with both, every ingest is published to at once")
        }
        for entry in try node.sequence() {
            switch output.settings {
            case let .rtmp(primaryURL, key, preset):
                let url = try rtmpURL(entry)
                output.connection.backupURLs.append(url)
                // A backup naming its own stream key keeps it; one naming only the application takes the
                // output's: its `key:`, or the key its url names.
                let outputKey = key ?? Self.streamKey(in: primaryURL).map { Secret(origin: "url", value: $0) }
                output.backupIngests.append(.rtmp(url: url, streamKey: URLRedaction.namesStreamKey(url) ? nil : outputKey, preset: preset))
            case let .srt(settings):
                output.connection.backupURLs.append(try entry.string())
                output.backupIngests.append(.srt(try srtBackup(entry, of: settings)))
            default:
                throw node.error("backup: is for rtmp and srt outputs")
            }
        }
        guard !output.backupIngests.isEmpty else { throw node.error("list one or more backup ingest URLs, or leave backup: out") }
    }

    /// The stream key an RTMP URL names, as `RTMPURL` splits it: the last path segment, with the query
    /// that follows it; nil for a URL that names only the application.
    static func streamKey(in url: String) -> String? {
        guard URLRedaction.namesStreamKey(url) else { return nil }
        let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let key = path[0].split(separator: "/").last.map(String.init) ?? ""
        return path.count > 1 ? key + "?" + path[1] : key
    }

    /// An SRT backup: the output's settings at another `srt://HOST:PORT`, with the `streamid` and
    /// `passphrase` its query may give instead (ingests differ in those; the rest is the output's).
    private func srtBackup(_ node: ConfigNode, of primary: SRTSettings) throws(ConfigError) -> SRTSettings {
        guard primary.mode == .caller else { throw node.error("backups are for an SRT caller; a listener waits for its receiver to dial in") }
        let text = try node.string()
        let url: SRTURL
        do { url = try SRTURL(text) } catch { throw node.error("'\(URLRedaction.origin(of: text))' \(error)") }
        if let other = url.query.keys.sorted().first(where: { !["streamid", "passphrase"].contains($0) }) {
            throw node.error("a backup URL may give streamid and passphrase; '\(other)' comes from the output's own settings")
        }
        guard !url.host.isEmpty else { throw node.error("a backup needs the receiver's host: srt://HOST:PORT") }
        var settings = primary
        settings.host = url.host
        settings.port = url.port
        if let streamID = url.query["streamid"] { settings.streamID = Secret(origin: "url", value: streamID) }
        if let passphrase = url.query["passphrase"] {
            settings.passphrase = try checkedPassphrase(Secret(origin: "url", value: passphrase), at: node)
        }
        return settings
    }

    /// `backup_mode: both` outputs as one output per ingest (``OutputConfig/publishedIngests``); a
    /// backup's id (`yt-backup-1`) must not be one the config gives another output.
    func publishedIngests(of outputs: [OutputConfig], node: ConfigNode) throws(ConfigError) -> [OutputConfig] {
        let published = outputs.flatMap(\.publishedIngests)
        var seen: Set<String> = []
        for output in published where !seen.insert(output.id).inserted {
            throw node.error("output id '\(output.id)' is used twice in this camera (backup_mode: both names its backups ID-backup-N)")
        }
        return published
    }
}
