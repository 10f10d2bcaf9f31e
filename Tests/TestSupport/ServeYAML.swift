/// `livepush serve` configs for process tests, so each test writes only what differs: cameras at
/// 640x480 @ 30 fps unless told, serve on 127.0.0.1 at a port the kernel picks (``ServeUnderTest`` reads it back).
public enum ServeYAML {
    /// A config with `cameras`, each from ``camera(_:source:encoder:keys:outputs:)``.
    public static func config(_ cameras: [String]) -> String {
        (["listen: 127.0.0.1:0", "cameras:"] + cameras).joined(separator: "\n") + "\n"
    }

    /// One camera: `encoder` as a YAML flow mapping ("{name: auto, bitrate: 1M}"), `keys` more camera
    /// keys ("on_demand: true"), `outputs` as flow mappings ("record: {path: /tmp/a.mp4}").
    public static func camera(_ id: String, source: String = "testpattern", size: String = "640x480", fps: Int = 30, encoder: String,
                              keys: [String] = [], outputs: [String] = []) -> String {
        let lines = ["source: \(source)", "size: \(size)", "fps: \(fps)", "encoder: \(encoder)"] + keys
        return (["  - id: \(id)"] + lines.map { "    " + $0 } + (outputs.isEmpty ? [] : ["    outputs:"] + outputs.map { "      - " + $0 }))
            .joined(separator: "\n")
    }
}
