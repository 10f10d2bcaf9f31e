import Capture
import Codec
import MediaCore

/// A camera's `adapt:` block: `cpu` (required; false turns it off), `min_size` (WxH, default
/// 640x360), `min_fps` (default 15) and `up_after` (a duration, default 30s): see docs/raspberry-pi.md.
/// Floors above the camera's own size or rate are refused here, naming the line.
extension ConfigParser {
    static let adaptKeys = ["cpu", "min_size", "min_fps", "up_after"]

    func parseAdapt(_ node: ConfigNode, camera: CameraConfig) throws(ConfigError) -> CPUAdaptationSettings? {
        let map = try node.mapping(allowed: Self.adaptKeys)
        guard try map.required("cpu").bool() else { return nil }
        var settings = CPUAdaptationSettings()
        if let size = map["min_size"] {
            let minimum: VideoSize
            do { minimum = try VideoSize(parsing: size.string()) } catch let error as ConfigError { throw error } catch {
                throw size.error("\(error)")
            }
            guard minimum.width <= camera.size.width, minimum.height <= camera.size.height else {
                throw size.error("min_size \(minimum) is above the camera's size \(camera.size); lower min_size")
            }
            (settings.minimumWidth, settings.minimumHeight) = (minimum.width, minimum.height)
        }
        if let fps = map["min_fps"] {
            settings.minimumFramesPerSecond = try fps.int(in: 1...240)
            guard Double(settings.minimumFramesPerSecond) <= camera.framesPerSecond else {
                throw fps.error("min_fps \(settings.minimumFramesPerSecond) is above the camera's fps \(Int(camera.framesPerSecond))")
            }
        }
        if let upAfter = map["up_after"] { settings.upAfterSeconds = try duration(upAfter) }
        return settings
    }
}
