import Codec
import Output
import Yams

extension ConfigParser {
    /// `- srt: {url: srt://HOST:PORT, passphrase: env:NAME, latency: 200, mode: listener}`: each field
    /// may come from the URL's query (as users paste libsrt URLs) or from its key, not both; the
    /// passphrase and stream ID are secrets (`env:`/`file:` work as for stream keys).
    func parseSRT(_ map: ConfigMapping) throws(ConfigError) -> SRTSettings {
        let urlNode = try map.required("url")
        let url: SRTURL
        do { url = try SRTURL(try urlNode.string()) } catch { throw urlNode.error("'\(URLRedaction.origin(of: try urlNode.string()))' \(error)") }
        /// The field from its key (parsed by `read`) or from the URL's query (parsed as the key would be).
        func field<Value>(_ key: String, _ read: (ConfigNode) throws(ConfigError) -> Value) throws(ConfigError) -> Value? {
            if let node = map[key] {
                guard url.query[key] == nil else { throw node.error("'\(key)' is given in the url too; keep one") }
                return try read(node)
            }
            guard let text = url.query[key] else { return nil }
            // Errors about a query field name the url's line.
            return try read(ConfigNode(node: .scalar(.init(text, .implicit, .any, urlNode.node.mark)), file: urlNode.file, path: "\(urlNode.path)?\(key)"))
        }
        var settings = SRTSettings(host: url.host, port: url.port)
        settings.mode = try field("mode") { node throws(ConfigError) in
            SRTSettings.Mode(rawValue: try node.choice(SRTSettings.Mode.allCases.map(\.rawValue))) ?? .caller
        } ?? .caller
        settings.streamID = try field("streamid") { node throws(ConfigError) in try inlineOrSecret(node, fromURL: map["streamid"] == nil) }
        settings.passphrase = try field("passphrase") { node throws(ConfigError) in
            try checkedPassphrase(try inlineOrSecret(node, fromURL: map["passphrase"] == nil), at: node)
        }
        settings.keyLengthBytes = try field("pbkeylen") { node throws(ConfigError) in
            let length = try node.int(in: 0...64)
            guard SRTSettings.keyLengths.contains(length) else { throw node.error("pbkeylen '\(length)' must be 16, 24 or 32 (AES key bytes)") }
            return length
        }
        if settings.keyLengthBytes != nil, settings.passphrase == nil {
            throw (map["pbkeylen"] ?? urlNode).error("pbkeylen sets the AES key length: it needs a passphrase")
        }
        settings.latencyMilliseconds = try field("latency") { node throws(ConfigError) in
            let range = SRTSettings.latencyRange
            do { return try node.int(in: range) } catch {
                throw node.error("latency '\((try? node.string()) ?? "")' must be whole milliseconds from \(range.lowerBound) to \(range.upperBound), e.g. 200")
            }
        }
        settings.audioCodec = try field("audio_codec") { node throws(ConfigError) in
            AudioCodec(rawValue: try node.choice(AudioCodec.allCases.map(\.rawValue))) ?? .aac
        } ?? .aac
        if settings.mode == .caller, settings.host.isEmpty { throw urlNode.error("a caller needs the receiver's host: srt://HOST:PORT") }
        return settings
    }

    /// libsrt takes passphrases of 10 to 79 characters (``SRTSettings/passphraseLengths``).
    func checkedPassphrase(_ passphrase: Secret, at node: ConfigNode) throws(ConfigError) -> Secret {
        guard SRTSettings.passphraseLengths.contains(passphrase.value.count) else {
            let range = SRTSettings.passphraseLengths
            throw node.error("the SRT passphrase must be \(range.lowerBound) to \(range.upperBound) characters (it has \(passphrase.value.count))")
        }
        return passphrase
    }

    /// Values in the URL's query are the text itself; a key's value may be `env:`/`file:` as well.
    private func inlineOrSecret(_ node: ConfigNode, fromURL: Bool) throws(ConfigError) -> Secret {
        fromURL ? Secret(origin: "url", value: try node.string()) : try secret(node)
    }
}
