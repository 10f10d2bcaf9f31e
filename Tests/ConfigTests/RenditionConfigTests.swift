import Capture
import Config
import MediaCore
import Testing

/// `renditions:` and each output's `rendition:`: inheritance from the camera, the default single
/// rendition, and the errors that name their line.
@Suite struct RenditionConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:])

    static let threeRenditions = """
    cameras:
      - id: cam
        size: 1920x1080
        fps: 30
        encoder: {name: libx264, bitrate: 6M, keyint: 1s, preset: ultrafast}
        renditions:
          - name: hd
          - {name: mid, size: 1280x720, bitrate: 3M, preset: veryfast}
          - {name: low, size: 854x480, fps: 15, bitrate: 1M, keyint: 4s, profile: baseline}
        outputs:
          - rtmp: {url: rtmp://127.0.0.1/live/a}
          - rtmp: {url: rtmp://127.0.0.1/live/b, rendition: mid}
          - record: {path: /tmp/low.mp4, rendition: low}
    """

    @Test func renditionsInheritTheCameraEncoderAndOutputsNameThem() throws {
        let camera = try parser.parse(Self.threeRenditions).cameras[0]
        let renditions = camera.effectiveRenditions
        #expect(renditions.map(\.name) == ["hd", "mid", "low"])
        #expect(renditions.map(\.size) == [VideoSize(width: 1920, height: 1080), VideoSize(width: 1280, height: 720), VideoSize(width: 854, height: 480)])
        #expect(renditions.map(\.framesPerSecond) == [30, 30, 15])
        #expect(renditions.map(\.encoder.bitrateBitsPerSecond) == [6_000_000, 3_000_000, 1_000_000])
        #expect(renditions.map(\.encoder.preset) == ["ultrafast", "veryfast", "ultrafast"], "unspecified keys come from encoder:")
        #expect(renditions.map(\.encoder.keyframeIntervalSeconds) == [1, 1, 4])
        #expect(renditions.map(\.encoder.profile) == [.high, .high, .baseline])
        #expect(renditions.allSatisfy { $0.encoder.name == "libx264" })
        #expect(camera.outputs.map(\.rendition) == [nil, "mid", "low"])
        #expect(camera.outputs.map { camera.renditionIndex(of: $0) } == [0, 1, 2], "an output without rendition: takes the first")
    }

    @Test func withoutRenditionsTheCameraHasOneFromItsEncoder() throws {
        let camera = try parser.parse("cameras:\n  - id: a\n    size: 640x360\n    fps: 25\n    encoder: {bitrate: 800k}\n    outputs:\n      - record: {path: a.mp4, rendition: main}\n").cameras[0]
        #expect(camera.renditions.isEmpty)
        #expect(camera.effectiveRenditions == [RenditionConfig(name: "main", size: VideoSize(width: 640, height: 360), framesPerSecond: 25, encoder: camera.encoder)])
        #expect(camera.effectiveRenditions[0].encoderSettings == camera.encoder.settings(size: camera.size, framesPerSecond: 25))
    }

    @Test(arguments: [
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd}\n    outputs:\n      - record: {path: a.mp4, rendition: sd}\n",
         "livepush.yaml:6: cameras[0].outputs[0].record.rendition: no rendition 'sd' in this camera; it has hd"),
        ("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rtmp://x/live, rendition: hd}\n",
         "livepush.yaml:4: cameras[0].outputs[0].rtmp.rendition: no rendition 'hd' in this camera; it has main"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd}\n      - {name: hd, size: 640x360}\n",
         "livepush.yaml:5: cameras[0].renditions[1].name: rendition name 'hd' is used twice in this camera"),
        ("cameras:\n  - id: a\n    size: 1280x720\n    renditions:\n      - {name: big, size: 1920x1080}\n",
         "livepush.yaml:5: cameras[0].renditions[0].size: 1920x1080 is larger than the camera's capture size 1280x720"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: odd, size: 641x360}\n", "livepush.yaml:4: cameras[0].renditions[0].size: 641x360: both sides must be even"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: bad, size: big}\n", "livepush.yaml:4: cameras[0].renditions[0].size:"),
        ("cameras:\n  - id: a\n    fps: 30\n    renditions:\n      - {name: fast, fps: 60}\n", "livepush.yaml:5: cameras[0].renditions[0].fps: 60.0 fps is above the camera's 30.0 fps"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: 'a b'}\n", "livepush.yaml:4: cameras[0].renditions[0].name: 'a b' must be 1–32 letters"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: low, bitrate: 1M}\n      - {name: high, bitrate: 3M}\n",
         "livepush.yaml:5: cameras[0].renditions[1].bitrate: list renditions top first"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, colour: red}\n", "livepush.yaml:4: cameras[0].renditions[0].colour: unknown key 'colour'"),
        ("cameras:\n  - id: a\n    renditions: []\n", "livepush.yaml:3: cameras[0].renditions: list at least one rendition"),
        ("cameras:\n  - id: a\n    renditions:\n      - {size: 640x360}\n", "livepush.yaml:4: cameras[0].renditions[0]: missing required key 'name'"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, bitrate: 3M}\n      - {name: sd, size: 640x360, bitrate: 500k}\n    outputs:\n      - whep: {adaptive_bitrate: true, min_bitrate: 1M, rendition: sd}\n",
         "livepush.yaml:7: cameras[0].outputs: output whep: min_bitrate 1000k is above rendition sd's bitrate (500k)"),
    ])
    func badRenditionsNameTheLine(yaml: String, expected: String) {
        expectRefused(yaml, expected)
    }

    /// A rendition's own encoder values are refused as the camera's are, at the line that set them:
    /// its own key, or the camera's `encoder:` key it inherited; an RTMP preset's rules apply to
    /// the rendition its output takes.
    @Test(arguments: [
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, encoder: libx246}\n",
         "livepush.yaml:4: cameras[0].renditions[0].encoder: 'libx246' is not an encoder this FFmpeg has; use auto"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, encoder: aac}\n",
         "livepush.yaml:4: cameras[0].renditions[0].encoder: 'aac' is not an H.264, H.265 or AV1 encoder"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd}\n      - {name: sd, size: 640x360, bitrate: 1M, encoder: libx264, preset: '7'}\n",
         "livepush.yaml:5: cameras[0].renditions[1].preset: '7' for libx264: presets are ultrafast"),
        ("cameras:\n  - id: a\n    encoder: {name: libx264, preset: '7'}\n    renditions:\n      - {name: hd}\n",
         "livepush.yaml:3: cameras[0].encoder.preset: '7' for libx264: presets are"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd}\n      - {name: sd, size: 640x360, bitrate: 1M, encoder: libsvtav1, preset: '14'}\n",
         "livepush.yaml:5: cameras[0].renditions[1].preset: '14' is not one of"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, bitrate: 3M}\n      - {name: sd, size: 640x360, bitrate: 1M, keyint: 4s}\n    outputs:\n      - rtmp: {preset: youtube, key: k, rendition: sd}\n",
         "livepush.yaml:5: cameras[0].renditions[1].keyint: preset youtube (output rtmp, rendition sd) needs a keyframe at least every 2 s"),
        ("cameras:\n  - id: a\n    encoder: {keyint: 4s}\n    renditions:\n      - {name: hd, bitrate: 3M}\n    outputs:\n      - rtmp: {preset: twitch, key: k}\n",
         "livepush.yaml:3: cameras[0].encoder.keyint: preset twitch (output rtmp, rendition hd) needs a keyframe"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, bitrate: 3M}\n      - {name: sd, size: 640x360, bitrate: 1M, profile: baseline}\n    outputs:\n      - rtmp: {preset: twitch, key: k, rendition: sd}\n",
         "livepush.yaml:5: cameras[0].renditions[1].profile: preset twitch (output rtmp, rendition sd) wants H.264 profile high"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, bitrate: 8M}\n      - {name: sd, size: 640x360, bitrate: 1M}\n    outputs:\n      - rtmp: {preset: twitch, key: k}\n",
         "livepush.yaml:4: cameras[0].renditions[0].bitrate: preset twitch accepts at most 6000k (output rtmp, rendition hd)"),
        ("cameras:\n  - id: a\n    encoder: {name: libx246}\n", "livepush.yaml:3: cameras[0].encoder.name: 'libx246' is not an encoder this FFmpeg has"),
    ])
    func badRenditionEncoderValuesNameTheirLine(yaml: String, expected: String) {
        expectRefused(yaml, expected)
    }

    /// An RTMP preset's rules bind only the rendition its output takes: the recording's rendition
    /// keeps its 4 s keyframe interval.
    @Test func aPresetBindsOnlyTheRenditionItsOutputTakes() throws {
        let camera = try parser.parse("""
        cameras:
          - id: a
            encoder: {name: libx264}
            renditions:
              - {name: hd, bitrate: 3M, keyint: 4s}
              - {name: sd, size: 640x360, bitrate: 1M}
            outputs:
              - rtmp: {preset: youtube, key: k, rendition: sd}
              - record: {path: a.mp4, rendition: hd}
        """).cameras[0]
        #expect(camera.renditions.map(\.encoder.keyframeIntervalSeconds) == [4, 2])
    }

    private func expectRefused(_ yaml: String, _ expected: String) {
        parser.expectRefused(yaml, expected)
    }
}
