import Capture
import Codec
import MediaCore

/// A camera's `renditions:` list: each entry `name`, `size`, `fps`, `bitrate`, `encoder`,
/// `keyint`, `preset`, `profile`, `maxrate`, `bufsize`, `tune`, `threads`; what an entry leaves out
/// it takes from the camera (`size`, `fps`, and the `encoder:` block). Listed top first: the highest bitrate first, as outputs that serve
/// every rendition (WHEP viewers) step down the list.
extension ConfigParser {
    static let renditionKeys = ["name", "size", "fps", "bitrate", "encoder", "keyint", "preset", "profile"] + rateControlKeys

    /// The renditions, each with the keys that set its encoder values (its own, else the camera's
    /// `cameraKeys` it inherits), so later checks (RTMP presets) name the right line.
    func parseRenditions(_ node: ConfigNode, camera: CameraConfig,
                         cameraKeys: ExplicitEncoderKeys) throws(ConfigError) -> ([RenditionConfig], [ExplicitEncoderKeys]) {
        let entries = try node.sequence()
        guard !entries.isEmpty else { throw node.error("list at least one rendition, or leave renditions out for one from size, fps and encoder") }
        var renditions: [RenditionConfig] = []
        var keys: [ExplicitEncoderKeys] = []
        for entry in entries {
            let map = try entry.mapping(allowed: Self.renditionKeys)
            let nameNode = try map.required("name")
            let name = try nameNode.string()
            guard Self.isValidRenditionName(name) else {
                throw nameNode.error("'\(name)' must be 1–32 letters, digits, '-' or '_' (outputs name it)")
            }
            if renditions.contains(where: { $0.name == name }) { throw nameNode.error("rendition name '\(name)' is used twice in this camera") }
            var rendition = RenditionConfig(name: name, size: camera.size, framesPerSecond: camera.framesPerSecond, encoder: camera.encoder)
            if let size = map["size"] { rendition.size = try renditionSize(size, capture: camera.size) }
            if let fps = map["fps"] {
                rendition.framesPerSecond = try fps.double(in: 1...240)
                guard rendition.framesPerSecond <= camera.framesPerSecond else {
                    throw fps.error("\(rendition.framesPerSecond) fps is above the camera's \(camera.framesPerSecond) fps; a rendition can only thin frames")
                }
            }
            if let name = map["encoder"] { rendition.encoder.name = try name.string() }
            try parseEncoderKeys(map, into: &rendition.encoder)
            if let previous = renditions.last, rendition.encoder.bitrateBitsPerSecond > previous.encoder.bitrateBitsPerSecond {
                throw (map["bitrate"] ?? entry).error("list renditions top first: '\(name)' (\(rendition.encoder.bitrateBitsPerSecond / 1000)k) has a higher bitrate than '\(previous.name)' (\(previous.encoder.bitrateBitsPerSecond / 1000)k) above it")
            }
            let explicit = ExplicitEncoderKeys(map, nameKey: "encoder").inheriting(cameraKeys)
            try checkEncoder(rendition.encoder, size: rendition.size, framesPerSecond: rendition.framesPerSecond, keys: explicit, fallback: entry)
            renditions.append(rendition)
            keys.append(explicit)
        }
        return (renditions, keys)
    }

    /// `WxH`, even sides (I420), no larger than the capture in either orientation (a rendition scales down, never up).
    private func renditionSize(_ node: ConfigNode, capture: VideoSize) throws(ConfigError) -> VideoSize {
        let size: VideoSize
        do { size = try VideoSize(parsing: node.string()) } catch let error as ConfigError { throw error } catch { throw node.error("\(error)") }
        guard size.width % 2 == 0, size.height % 2 == 0 else { throw node.error("\(size): both sides must be even (4:2:0 video), e.g. \(size.width & ~1)x\(size.height & ~1)") }
        let fits = (size.width <= capture.width && size.height <= capture.height) || (size.width <= capture.height && size.height <= capture.width)
        guard fits else { throw node.error("\(size) is larger than the camera's capture size \(capture); a rendition can only scale down") }
        return size
    }

    static func isValidRenditionName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 32 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
