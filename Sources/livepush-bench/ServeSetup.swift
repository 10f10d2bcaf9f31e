import Harness

/// What ``ServeUnderTest`` runs `livepush serve` with.
///
/// - ``testPattern``: the serve benchmark's job (the busy test pattern at 720p30, one libx264
///   encode, RTMP and WHEP).
/// - ``simulatedCamera``: the long run of issue 28: the V4L2 simulator's camera (scripts/sim-camera
///   preloads scripts/v4l2sim into `serve`, so its frame rendering counts in livepush's CPU and
///   RSS) at 720p30, three renditions (720p 2.5M, 480p 1.2M, 360p 600k, libx264 veryfast), the
///   720p one over RTMP to nginx-rtmp, the 360p one recorded (10-minute segments kept 30
///   minutes, so an hour exercises rotation and pruning but the disk stays bounded), WHEP for all.
enum ServeSetup: String, CaseIterable {
    case testPattern = "testpattern"
    case simulatedCamera = "camera"

    /// The command in front of the `livepush` binary (the simulator's preloading wrapper, which execs it).
    var launcher: [String] {
        switch self {
        case .testPattern: []
        case .simulatedCamera: [Repository.root.appendingPathComponent("scripts/sim-camera").path, "--devices", "/dev/video-sim0", "--"]
        }
    }

    /// The YAML config: the API on `port`, RTMP to `rtmpURL`, any recording under `directory`.
    func config(port: Int, rtmpURL: String, directory: String) -> String {
        switch self {
        case .testPattern:
            return ServeUnderTest.config(port: port, outputs: ["rtmp: {url: \(rtmpURL), key: serve}", "whep: {max_viewers: 4}"])
        case .simulatedCamera:
            let camera = ["source: /dev/video-sim0", "size: 1280x720", "fps: 30",
                          "encoder: {name: libx264, bitrate: 2500k, keyint: 2s, preset: veryfast}",
                          "renditions:", "  - name: 720p", "  - {name: 480p, size: 854x480, bitrate: 1200k}",
                          "  - {name: 360p, size: 640x360, bitrate: 600k}"]
            let outputs = ["rtmp: {url: \(rtmpURL), key: serve, rendition: 720p}", "whep: {max_viewers: 4}",
                           "record: {path: \(directory)/soak.mp4, segment: 10m, retention: 30m, rendition: 360p}"]
            return ServeUnderTest.config(port: port, camera: camera, outputs: outputs)
        }
    }
}
