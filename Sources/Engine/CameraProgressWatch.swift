/// The systemd watchdog's verdict per camera: it is petted only when every running camera encoded
/// frames since the last check, so one wedged camera among several stops the pets (and systemd
/// restarts the service) instead of hiding behind the others' frames.
struct CameraProgressWatch {
    private var lastFrames: [String: Int] = [:]

    /// Cameras whose frame count did not grow since the last call (a camera seen for the first time
    /// counts as progressing; a camera that went away is forgotten).
    mutating func stalledCameras(framesEncoded: [String: Int]) -> [String] {
        defer { lastFrames = framesEncoded }
        return framesEncoded.keys.sorted().filter { id in
            guard let before = lastFrames[id] else { return false }
            return framesEncoded[id, default: 0] <= before
        }
    }
}
