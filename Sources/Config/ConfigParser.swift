import Capture
import Codec
import Foundation
import MediaCore
import Yams

/// Reads a livepush YAML config by walking Yams' `Node`s (not `Codable`), so every error names the
/// file, the line and the key path, and unknown keys are errors rather than silently ignored.
public struct ConfigParser {
    /// The file name errors mention.
    public var file: String
    /// Where `env:NAME` secrets come from.
    public var environment: [String: String]
    /// How `file:PATH` secrets are read.
    public var readFile: @Sendable (String) -> String?

    public init(file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                readFile: @escaping @Sendable (String) -> String? = { try? String(contentsOfFile: $0, encoding: .utf8) }) {
        self.file = file
        self.environment = environment
        self.readFile = readFile
    }

    /// Reads and validates the file at ``file``.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigError) -> LivepushConfig {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigError(file: path, line: nil, key: "", message: "cannot read the file (does it exist, and may livepush read it?)")
        }
        return try ConfigParser(file: path, environment: environment).parse(text)
    }

    static let topKeys = ["listen", "api_token", "viewer_token", "cameras", "audio", "allowed_hosts", "auth", "cors_origins", "limits", "tls"]
    static let cameraKeys = ["id", "source", "source_protocols", "size", "fps", "rotation", "mirror", "controls", "stall_timeout", "encoder", "renditions", "outputs", "overlay",
                             "adapt", "on_demand", "on_demand_idle"]
    static let encoderKeys = ["name", "bitrate", "keyint", "preset", "profile"] + rateControlKeys
    static let audioKeys = ["device", "sample_rate", "channels", "clock_correction"]

    public func parse(_ yaml: String) throws(ConfigError) -> LivepushConfig {
        if let key = YAMLKeyShapeCheck.firstCollectionKey(in: yaml) {
            throw ConfigError(file: file, line: key.line, key: "",
                              message: "\(key.what): livepush's keys are plain names; write it as 'name: value', e.g. 'bitrate: 2500k'")
        }
        let root: Node
        do {
            // The basic resolver tags nothing: every value is read as text by ConfigNode anyway, and
            // Yams' default resolver compiles NSRegularExpressions (ICU) for tags we never look at,
            // which leaves about 0.7 MB more of ICU and Foundation resident in a long-running `serve`.
            guard let node = try Yams.compose(yaml: yaml, .basic) else {
                throw ConfigError(file: file, line: nil, key: "", message: "the file is empty; it needs at least a 'cameras' list")
            }
            root = node
        } catch let error as ConfigError {
            throw error
        } catch let error as YamlError {
            throw ConfigError(file: file, line: Self.line(of: error), key: "", message: "not valid YAML: \(error)")
        } catch {
            throw ConfigError(file: file, line: nil, key: "", message: "not valid YAML: \(error)")
        }
        let top = try ConfigNode(node: root, file: file, path: "").mapping(allowed: Self.topKeys)
        var config = LivepushConfig(cameras: [])
        if let listen = top["listen"] {
            let text = try listen.string()
            guard let address = ListenAddress(parsing: text) else { throw listen.error("'\(text)' must be HOST:PORT, e.g. 127.0.0.1:8080") }
            config.listen = address
        }
        if let token = top["api_token"] { config.apiToken = try strongSecret(token, key: "api_token") }
        if let auth = top["auth"] { config.openAccess = try auth.choice(["none"]) == "none" }
        if let hosts = top["allowed_hosts"] {
            config.allowedHosts = try hosts.sequence().map { node throws(ConfigError) in
                let name = try node.string().lowercased()
                guard !name.isEmpty, !name.contains(":"), !name.contains("/") else { throw node.error("'\(name)' must be a host name or IPv4 address without a port, e.g. camera.local") }
                return name
            }
        }
        try parseHTTPAccess(top, into: &config)
        if let audio = top["audio"] { config.audio = try parseAudio(audio) }
        let cameras = try top.required("cameras").sequence()
        guard !cameras.isEmpty else { throw try top.required("cameras").error("list at least one camera") }
        for node in cameras {
            let camera = try parseCamera(node)
            if config.cameras.contains(where: { $0.id == camera.id }) {
                throw node.child(node.node, key: "id").error("camera id '\(camera.id)' is used twice")
            }
            config.cameras.append(camera)
        }
        return config
    }

    func secret(_ node: ConfigNode) throws(ConfigError) -> Secret {
        try Secret.resolve(node.string(), at: node, environment: environment, readFile: readFile)
    }

    private func parseCamera(_ node: ConfigNode) throws(ConfigError) -> CameraConfig {
        let map = try node.mapping(allowed: Self.cameraKeys)
        let idNode = try map.required("id")
        let id = try idNode.string()
        guard !id.isEmpty, id.count <= 32, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw idNode.error("'\(id)' must be 1–32 letters, digits, '-' or '_' (it appears in URLs)")
        }
        var camera = CameraConfig(id: id)
        if let source = map["source"] {
            do { camera.source = try SourceSpec(parsing: source.string()) } catch let error as ConfigError { throw error } catch {
                throw source.error("\(error); use testpattern, file:PATH, /dev/videoN, camera:INDEX, camera:NAME or rpicam:INDEX")
            }
        }
        if let protocols = map["source_protocols"] { camera.sourceProtocols = try parseSourceProtocols(protocols, source: camera.source) }
        if let size = map["size"] {
            do { camera.size = try VideoSize(parsing: size.string()) } catch let error as ConfigError { throw error } catch {
                throw size.error("\(error)")
            }
        }
        if let fps = map["fps"] { camera.framesPerSecond = try fps.double(in: 1...240) }
        if let rotation = map["rotation"] {
            let degrees = try rotation.int(in: 0...270)
            guard let value = VideoRotation(rawValue: degrees) else { throw rotation.error("'\(degrees)' must be 0, 90, 180 or 270") }
            camera.rotation = value
        }
        if let mirror = map["mirror"] { camera.mirror = try mirror.bool() }
        if let controls = map["controls"] {
            camera.controls = try parseControls(controls)
            // rpicam-vid takes controls as options: check them now, not when the camera starts.
            if case .rpicam = camera.source {
                do { _ = try RpicamControls.arguments(for: camera.controls) } catch { throw controls.error("\(error)") }
            }
        }
        if let stall = map["stall_timeout"] { camera.stallTimeoutSeconds = try duration(stall) }
        if let overlay = map["overlay"] { camera.overlay = try parseOverlay(overlay) }
        camera.onDemand = try parseOnDemand(map)
        var explicit = ExplicitEncoderKeys()
        if let encoder = map["encoder"] { (camera.encoder, explicit) = try parseEncoder(encoder) }
        if let outputs = map["outputs"] { camera.outputs = try parseOutputs(outputs) }
        if let adapt = map["adapt"] { camera.adapt = try parseAdapt(adapt, camera: camera) }
        var renditionKeys: [ExplicitEncoderKeys] = []
        if let renditions = map["renditions"] {
            (camera.renditions, renditionKeys) = try parseRenditions(renditions, camera: camera, cameraKeys: explicit)
        }
        try applyPresets(to: &camera, explicit: explicit, renditionKeys: renditionKeys, outputsNode: map["outputs"])
        if camera.renditions.isEmpty {
            try checkEncoder(camera.encoder, size: camera.size, framesPerSecond: camera.framesPerSecond, keys: explicit, fallback: map["encoder"] ?? node)
        }
        if let outputs = map["outputs"] { try checkRenditionNames(outputs, camera: camera) }
        for output in camera.outputs where output.adaptiveBitrate {
            let rendition = camera.effectiveRenditions[camera.renditionIndex(of: output)]
            guard let minimum = output.viewers.minimumBitrateBitsPerSecond, minimum > rendition.encoder.bitrateBitsPerSecond else { continue }
            let whose = camera.renditions.isEmpty ? "the camera's" : "rendition \(rendition.name)'s"
            throw (map["outputs"] ?? node).error("output \(output.id): min_bitrate \(minimum / 1000)k is above \(whose) bitrate (\(rendition.encoder.bitrateBitsPerSecond / 1000)k)")
        }
        if let outputs = map["outputs"] { camera.outputs = try publishedIngests(of: camera.outputs, node: outputs) }
        return camera
    }

    private func parseControls(_ node: ConfigNode) throws(ConfigError) -> [String: String] {
        guard case let .mapping(mapping) = node.node else { throw node.error("expected a mapping of control names to values, e.g. brightness: 140") }
        var controls: [String: String] = [:]
        for (key, value) in mapping {
            let name = try node.child(key, key: "").string()
            controls[name] = try node.child(value, key: name).string()
        }
        return controls
    }

    /// Encoder keys the user wrote, by their name in a camera's `encoder:` (a rendition's
    /// `encoder` key is kept as `name`), so presets can tell a default from a deliberate choice and
    /// errors name the line that set a value.
    struct ExplicitEncoderKeys {
        private var nodes: [String: ConfigNode] = [:]

        init() {}

        /// `map`'s encoder keys, the name under `nameKey`.
        init(_ map: ConfigMapping, nameKey: String) {
            for key in ConfigParser.encoderKeys where key != "name" { nodes[key] = map[key] }
            nodes["name"] = map[nameKey]
        }

        /// The node of key `key` (`keyint`, `bitrate`, `name`, …), nil when the user did not write it.
        subscript(key: String) -> ConfigNode? { nodes[key] }

        /// A rendition's keys, each falling back to the camera's `encoder:` key it inherits.
        func inheriting(_ camera: Self) -> Self {
            var keys = self
            keys.nodes.merge(camera.nodes) { own, _ in own }
            return keys
        }
    }

    private func parseEncoder(_ node: ConfigNode) throws(ConfigError) -> (EncoderConfig, ExplicitEncoderKeys) {
        let map = try node.mapping(allowed: Self.encoderKeys)
        var encoder = EncoderConfig()
        if let name = map["name"] { encoder.name = try name.string() }
        try parseEncoderKeys(map, into: &encoder)
        return (encoder, ExplicitEncoderKeys(map, nameKey: "name"))
    }

    /// `bitrate`, `keyint`, `preset`, `profile` and the rate-control keys, as the camera's `encoder:` and each rendition take them.
    func parseEncoderKeys(_ map: ConfigMapping, into encoder: inout EncoderConfig) throws(ConfigError) {
        if let bitrate = map["bitrate"] { encoder.bitrateBitsPerSecond = try Self.bitrate(bitrate) }
        if let keyint = map["keyint"] { encoder.keyframeIntervalSeconds = try duration(keyint) }
        if let preset = map["preset"] {
            // x264's names (mapped per encoder family), or SVT-AV1's own 0…13.
            let text = try preset.string()
            encoder.preset = Int(text).map { (0...13).contains($0) } == true ? text
                : try preset.choice(["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"])
        }
        if let profile = map["profile"], let value = VideoEncoderSettings.Profile(rawValue: try profile.choice(VideoEncoderSettings.Profile.allCases.map(\.rawValue))) {
            encoder.profile = value
        }
        try parseRateControlKeys(map, into: &encoder)
    }

    /// `2500k`, `2.5M`; a bare number is refused because kbit/s vs bit/s is the classic mistake.
    static func bitrate(_ node: ConfigNode) throws(ConfigError) -> Int {
        let text = try node.string()
        if !text.isEmpty, text.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw node.error("'\(text)' needs a unit, e.g. \(text)k")
        }
        do { return try BitrateParser.bitsPerSecond(parsing: text) } catch { throw node.error("\(error)") }
    }

    /// `2s`, `10m`, `1h`, `7d`, or a number of seconds.
    func duration(_ node: ConfigNode) throws(ConfigError) -> Double {
        let text = try node.string()
        if let seconds = Double(text), seconds > 0 { return seconds }
        if text.hasSuffix("d"), let days = Double(text.dropLast()), days > 0 { return days * 86_400 }
        do { return try DurationParser.seconds(parsing: text) } catch { throw node.error("'\(text)' is not a duration; write it like 2s, 10m, 1h or 7d") }
    }

    private func parseAudio(_ node: ConfigNode) throws(ConfigError) -> AudioConfig {
        let map = try node.mapping(allowed: Self.audioKeys)
        var audio = AudioConfig()
        if let device = map["device"] { audio.device = try device.string() }
        if let rate = map["sample_rate"] {
            audio.sampleRate = try rate.int(in: 8_000...96_000)
            guard [8_000, 16_000, 22_050, 44_100, 48_000, 96_000].contains(audio.sampleRate) else {
                throw rate.error("'\(audio.sampleRate)' is not a common rate; use 44100 or 48000")
            }
        }
        if let channels = map["channels"] { audio.channels = try channels.int(in: 1...2) }
        if let correction = map["clock_correction"] { audio.clockCorrection = try correction.bool() }
        return audio
    }

    /// Preset rules (keyframe interval, profile, bitrate ceiling) checked against the encode each
    /// RTMP output with a preset takes: the camera's encoder, or the rendition the output names
    /// (`renditionKeys`: each rendition's keys, falling back to the camera's it inherits).
    private func applyPresets(to camera: inout CameraConfig, explicit: ExplicitEncoderKeys, renditionKeys: [ExplicitEncoderKeys],
                              outputsNode: ConfigNode?) throws(ConfigError) {
        for output in camera.outputs {
            guard case let .rtmp(_, _, preset?) = output.settings else { continue }
            if camera.renditions.isEmpty {
                try apply(preset, output: output.id, to: &camera.encoder, explicit: explicit, outputsNode: outputsNode)
            } else {
                let index = camera.renditionIndex(of: output)
                try apply(preset, output: "\(output.id), rendition \(camera.renditions[index].name)", to: &camera.renditions[index].encoder,
                          explicit: renditionKeys[index], outputsNode: outputsNode)
            }
        }
    }

    /// One preset's rules on one encoder: a keyframe interval the user did not set is lowered to
    /// the preset's limit; one they set, a profile or a bitrate the preset refuses throws at its key.
    private func apply(_ preset: StreamingPreset, output: String, to encoder: inout EncoderConfig, explicit: ExplicitEncoderKeys,
                       outputsNode: ConfigNode?) throws(ConfigError) {
        let limit = preset.maximumKeyframeIntervalSeconds
        if encoder.keyframeIntervalSeconds > limit {
            guard let keyint = explicit["keyint"] else { encoder.keyframeIntervalSeconds = limit; return }
            throw keyint.error("preset \(preset.name) (output \(output)) needs a keyframe at least every \(Int(limit)) s; use keyint: 2s")
        }
        if let profile = explicit["profile"], encoder.profile.rawValue != preset.profile {
            throw profile.error("preset \(preset.name) (output \(output)) wants H.264 profile \(preset.profile)")
        }
        if encoder.bitrateBitsPerSecond > preset.maximumBitrateBitsPerSecond {
            let node = explicit["bitrate"] ?? outputsNode
            throw (node ?? ConfigNode(node: Node(""), file: file, path: "cameras")).error(
                "preset \(preset.name) accepts at most \(preset.maximumBitrateBitsPerSecond / 1000)k (output \(output))")
        }
    }

    static func line(of error: YamlError) -> Int? {
        switch error {
        case let .scanner(_, _, mark, _), let .parser(_, _, mark, _), let .composer(_, _, mark, _): return mark.line
        default: return nil
        }
    }
}
