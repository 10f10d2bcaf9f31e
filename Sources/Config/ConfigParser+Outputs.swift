import Codec
import Foundation
import Output

extension ConfigParser {
    static let outputKeys: [OutputConfig.Kind: [String]] = [
        .record: ["id", "path", "segment", "retention"],
        .rtmp: ["id", "url", "key", "preset", "ca_file", "adaptive_bitrate", "timeout", "send_queue", "reconnect", "stall_timeout", "follow_redirects",
                "in_use_retry", "capture_time", "backup", "backup_mode", "backup_return_after", "renditions"],
        .rtp: ["id", "destination", "payload_type", "srtp_key", "sdp_file", "local_port", "stall_timeout", "capture_time"],
        .whep: ["id", "max_viewers", "adaptive_bitrate", "udp_port", "token", "min_bitrate", "stall_timeout"],
        .whip: ["id", "url", "token", "ca_file", "timeout", "consent_timeout", "reconnect", "stall_timeout", "follow_redirects"],
        .srt: ["id", "url", "streamid", "passphrase", "pbkeylen", "latency", "mode", "adaptive_bitrate", "timeout", "reconnect", "stall_timeout",
               "in_use_retry", "audio_codec", "capture_time", "backup", "backup_mode", "backup_return_after"],
    ]
    /// Keys every kind takes: `rendition`, and `start` (``OutputDefaults/startsWithCamera``; false keeps the output stopped until started through the API).
    static let commonOutputKeys = ["rendition", "start"]
    static let reconnectKeys = ["delay", "max_delay", "attempts"]
    /// The SRTP key that asks for a fresh random key at each start.
    public static let generatedSRTPKey = "generate"

    /// `outputs:` is a list of one-key mappings: `- record: {path: …}`, `- rtmp: {url: …, key: env:KEY}`.
    func parseOutputs(_ node: ConfigNode) throws(ConfigError) -> [OutputConfig] {
        var outputs: [OutputConfig] = []
        for entry in try node.sequence() {
            let kinds = OutputConfig.Kind.allCases.map(\.rawValue)
            let wrapper = try entry.mapping(allowed: kinds)
            guard wrapper.entries.count == 1, let (kindName, body) = wrapper.entries.first, let kind = OutputConfig.Kind(rawValue: kindName) else {
                throw entry.error("each output is one of \(kinds.joined(separator: ", ")), e.g. '- record: {path: cam.mp4}'")
            }
            let map = try body.mapping(allowed: (Self.outputKeys[kind] ?? []) + Self.commonOutputKeys)
            let settings = try parseOutputSettings(kind, map)
            let id = try map["id"]?.string() ?? uniqueID(kind.rawValue, among: outputs)
            if outputs.contains(where: { $0.id == id }) { throw (map["id"] ?? entry).error("output id '\(id)' is used twice in this camera") }
            var output = OutputConfig(id: id, settings: settings, caFile: try map["ca_file"].map { node throws(ConfigError) in try caFile(node) },
                                        adaptiveBitrate: try map["adaptive_bitrate"]?.bool() ?? OutputDefaults.adaptiveBitrate,
                                        connection: try parseConnection(map), sdpFile: try map["sdp_file"]?.string(),
                                        viewers: kind == .whep ? try parseViewers(map) : WHEPViewerConfig(),
                                        rendition: try map["rendition"]?.string(),
                                        tracks: try map["renditions"].map { node throws(ConfigError) in try trackNames(node, rendition: map["rendition"]) } ?? [],
                                        startsWithCamera: try map["start"]?.bool() ?? OutputDefaults.startsWithCamera,
                                        captureTime: try map["capture_time"].map { node throws(ConfigError) in
                                            CaptureTimeSignal(rawValue: try node.choice(CaptureTimeSignal.allCases.map(\.rawValue)))!
                                        })
            try parseBackups(map, into: &output)
            outputs.append(output)
        }
        return outputs
    }

    /// Each output's `rendition:` must name one of the camera's renditions, and so must each of an
    /// rtmp output's `renditions:` (``checkTracks(_:of:camera:)``).
    func checkRenditionNames(_ node: ConfigNode, camera: CameraConfig) throws(ConfigError) {
        let names = camera.effectiveRenditions.map(\.name)
        for (entry, output) in zip(try node.sequence(), camera.outputs) {
            guard case let .mapping(wrapper) = entry.node, let (kind, body) = wrapper.first else { continue }
            let map = try entry.child(body, key: kind.string ?? "").mapping(allowed: Self.allOutputKeys)
            if let tracksNode = map["renditions"] { try checkTracks(tracksNode, of: output, camera: camera) }
            guard let renditionNode = map["rendition"] else { continue }
            let name = try renditionNode.string()
            guard names.contains(name) else {
                throw renditionNode.error("no rendition '\(name)' in this camera; it has \(names.joined(separator: ", "))")
            }
        }
    }

    /// `renditions: [hd, sd, ld]` on an rtmp output: two or more, each named once, instead of `rendition:`.
    private func trackNames(_ node: ConfigNode, rendition: ConfigNode?) throws(ConfigError) -> [String] {
        if rendition != nil { throw node.error("give either rendition: (one stream) or renditions: (tracks of one connection), not both") }
        var names: [String] = []
        for entry in try node.sequence() {
            let name = try entry.string()
            if names.contains(name) { throw entry.error("rendition '\(name)' is listed twice; each goes as one track") }
            names.append(name)
        }
        guard names.count >= 2 else {
            throw node.error("list two or more of the camera's renditions, top first (e.g. [hd, sd]); for one, write rendition: NAME")
        }
        return names
    }

    /// The tracks of one connection must exist and share their keyframe times: the same frame rate and
    /// keyframe interval, so a server can switch a viewer between them at any keyframe.
    private func checkTracks(_ node: ConfigNode, of output: OutputConfig, camera: CameraConfig) throws(ConfigError) {
        let renditions = camera.effectiveRenditions
        let names = renditions.map(\.name)
        for name in output.tracks where !names.contains(name) {
            throw node.error("no rendition '\(name)' in this camera; it has \(names.joined(separator: ", "))")
        }
        let tracks = camera.trackRenditionIndices(of: output).map { renditions[$0] }
        guard let top = tracks.first else { return }
        for track in tracks.dropFirst()
        where track.framesPerSecond != top.framesPerSecond || track.encoder.keyframeIntervalSeconds != top.encoder.keyframeIntervalSeconds {
            throw node.error("renditions \(top.name) and \(track.name) have different frame rates or keyframe intervals"
                             + " (\(top.framesPerSecond) fps, keyint \(top.encoder.keyframeIntervalSeconds)s vs \(track.framesPerSecond) fps,"
                             + " keyint \(track.encoder.keyframeIntervalSeconds)s): tracks of one connection need their keyframes at the same times")
        }
    }

    private static var allOutputKeys: [String] { Array(Set(outputKeys.values.joined())) + commonOutputKeys }

    private func parseConnection(_ map: ConfigMapping) throws(ConfigError) -> ConnectionConfig {
        var connection = ConnectionConfig()
        connection.timeoutSeconds = try map["timeout"].map { node throws(ConfigError) in try duration(node) }
        connection.sendQueueSeconds = try map["send_queue"].map { node throws(ConfigError) in try duration(node) }
        connection.consentTimeoutSeconds = try map["consent_timeout"].map { node throws(ConfigError) in try duration(node) }
        connection.stallTimeoutSeconds = try map["stall_timeout"].map { node throws(ConfigError) in try duration(node) }
        connection.inUseRetrySeconds = try map["in_use_retry"].map { node throws(ConfigError) in
            try node.string() == "off" ? 0 : try duration(node)
        }
        connection.localPort = try map["local_port"]?.int(in: 1...65535)
        connection.followRedirects = try map["follow_redirects"].map { node throws(ConfigError) in
            RedirectPolicy(rawValue: try node.choice(RedirectPolicy.allCases.map(\.rawValue)))!
        }
        if let node = map["reconnect"] {
            let reconnect = try node.mapping(allowed: Self.reconnectKeys)
            let defaults = ReconnectPolicy()
            connection.reconnect = ReconnectPolicy(
                initialDelaySeconds: try reconnect["delay"].map { node throws(ConfigError) in try duration(node) } ?? defaults.initialDelaySeconds,
                maximumDelaySeconds: try reconnect["max_delay"].map { node throws(ConfigError) in try duration(node) } ?? defaults.maximumDelaySeconds,
                maximumAttempts: try reconnect["attempts"]?.int(in: 0...1_000_000))
        }
        return connection
    }

    /// An RTMP(S) URL as `url:` and `backup:` take it.
    func rtmpURL(_ node: ConfigNode) throws(ConfigError) -> String {
        let url = try node.string()
        guard url.hasPrefix("rtmp://") || url.hasPrefix("rtmps://"), url.count > "rtmps://x".count else {
            throw node.error("'\(URLRedaction.origin(of: url))' must start with rtmp:// or rtmps://")
        }
        return url
    }

    private func parseViewers(_ map: ConfigMapping) throws(ConfigError) -> WHEPViewerConfig {
        WHEPViewerConfig(udpPort: try map["udp_port"]?.int(in: 0...65535) ?? 0,
                         token: try map["token"].map { node throws(ConfigError) in try strongSecret(node, key: "token") },
                         minimumBitrateBitsPerSecond: try map["min_bitrate"].map { node throws(ConfigError) in try Self.bitrate(node) })
    }

    /// A PEM file of CA certificates to trust besides the system store (a private ingest's own CA),
    /// checked now so that `check-config` finds a wrong path, not the first TLS handshake.
    private func caFile(_ node: ConfigNode) throws(ConfigError) -> String {
        let path = try node.string()
        guard let contents = readFile(path), contents.contains("-----BEGIN CERTIFICATE-----") else {
            throw node.error("'\(path)' is not a readable PEM file of CA certificates (-----BEGIN CERTIFICATE-----)")
        }
        return path
    }

    private func uniqueID(_ base: String, among outputs: [OutputConfig]) -> String {
        var id = base, counter = 1
        while outputs.contains(where: { $0.id == id }) { counter += 1; id = "\(base)-\(counter)" }
        return id
    }

    private func parseOutputSettings(_ kind: OutputConfig.Kind, _ map: ConfigMapping) throws(ConfigError) -> OutputConfig.Settings {
        switch kind {
        case .record:
            let path = try map.required("path").string()
            guard !path.isEmpty else { throw try map.required("path").error("give a file path, e.g. /var/lib/livepush/cam.mp4") }
            return .record(path: path, segmentSeconds: try map["segment"].map { node throws(ConfigError) in try duration(node) },
                           retentionSeconds: try map["retention"].map { node throws(ConfigError) in try duration(node) })
        case .rtmp:
            let preset = try map["preset"].map { node throws(ConfigError) -> StreamingPreset in
                let name = try node.choice(StreamingPreset.all.map(\.name))
                return StreamingPreset.named(name) ?? .youtube
            }
            let key = try map["key"].map { node throws(ConfigError) in try secret(node) }
            let url: String
            if let node = map["url"] {
                url = try rtmpURL(node)
            } else if let preset {
                url = preset.ingestURL
            } else {
                throw map.owner.error("give url: rtmp://HOST/APP (or preset: youtube|twitch)")
            }
            if preset != nil, key == nil { throw map.owner.error("preset \(preset?.name ?? "") needs key: env:NAME (the stream key)") }
            return .rtmp(url: url, streamKey: key, preset: preset)
        case .rtp:
            let destination = try map.required("destination")
            guard let address = ListenAddress(parsing: try destination.string()), address.port > 0 else {
                throw destination.error("write the receiver as HOST:PORT, e.g. 127.0.0.1:5004")
            }
            let payloadType = try map["payload_type"]?.int(in: OutputDefaults.rtpPayloadTypeRange) ?? OutputDefaults.rtpPayloadType
            let key = try map["srtp_key"].map { node throws(ConfigError) in try secret(node) }
            if let key, key.value != Self.generatedSRTPKey, Data(base64Encoded: key.value)?.count != 30, let node = map["srtp_key"] {
                throw node.error("the SRTP key must be 30 bytes (AES_CM_128_HMAC_SHA1_80 master key + salt) in base64, or generate")
            }
            return .rtp(host: address.host, port: address.port, payloadType: payloadType, srtpKey: key)
        case .whep:
            return .whep(maxViewers: try map["max_viewers"]?.int(in: OutputDefaults.whepMaxViewersRange) ?? OutputDefaults.whepMaxViewers)
        case .whip:
            let node = try map.required("url")
            let url = try node.string()
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw node.error("'\(URLRedaction.origin(of: url))' must be an http:// or https:// WHIP endpoint") }
            return .whip(url: url, token: try map["token"].map { node throws(ConfigError) in try secret(node) })
        case .srt:
            return .srt(try parseSRT(map))
        }
    }
}
