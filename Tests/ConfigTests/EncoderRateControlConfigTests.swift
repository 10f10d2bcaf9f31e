import Codec
import Config
import Testing

/// The encoder's `maxrate`, `bufsize`, `tune` and `threads` keys: their values reach the encoder's
/// settings, renditions inherit what they leave out, and bad values are refused at their line.
@Suite struct EncoderRateControlConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:])

    @Test func valuesReachTheSettingsAndRenditionsInheritThem() throws {
        let camera = try parser.parse("""
        cameras:
          - id: cam
            size: 1280x720
            encoder: {name: libx264, bitrate: 2M, maxrate: 3M, bufsize: 0.5s, tune: film, threads: 2}
            renditions:
              - name: hd
              - {name: sd, size: 640x360, bitrate: 800k, maxrate: 1M, bufsize: 400k, tune: none, threads: 1}
              - {name: low, size: 320x180, bitrate: 300k}
        """).cameras[0]
        let settings = camera.effectiveRenditions.map(\.encoderSettings)
        #expect(settings.map(\.maxBitrateBitsPerSecond) == [3_000_000, 1_000_000, 3_000_000])
        // 0.5s is half a second of each rendition's own bitrate; 400k is bits.
        #expect(settings.map(\.bufferSizeBits) == [1_000_000, 400_000, 150_000])
        #expect(settings.map(\.tune) == ["film", nil, "film"], "tune: none is no tune")
        #expect(settings.map(\.threads) == [2, 1, 2])
        #expect(camera.encoder.bufferSize == .seconds(0.5) && camera.renditions[1].encoder.bufferSize == .bits(400_000))
    }

    @Test func withoutTheKeysTheEncoderKeepsItsDefaults() throws {
        let camera = try parser.parse("cameras:\n  - id: a\n    encoder: {name: libx264, bitrate: 1M}\n").cameras[0]
        let settings = camera.effectiveRenditions[0].encoderSettings
        #expect(settings.maxBitrateBitsPerSecond == nil && settings.bufferSizeBits == nil)
        #expect(settings.effectiveMaxBitrate == 1_000_000 && settings.effectiveBufferSizeBits == 1_000_000, "CBR-like, a one-second buffer")
        #expect(settings.tune == "zerolatency" && settings.threads == 0)
    }

    @Test(arguments: [
        ("cameras:\n  - id: a\n    encoder: {name: libx264, bitrate: 2M, maxrate: 1M}\n",
         "livepush.yaml:3: cameras[0].encoder.maxrate: '1000000' for libx264: must be at least the bitrate 2000000"),
        // A rendition above the camera's maxrate it inherits: the camera's line.
        ("cameras:\n  - id: a\n    encoder: {name: libx264, bitrate: 1M, maxrate: 1500k}\n    renditions:\n      - {name: hd, bitrate: 2M}\n",
         "livepush.yaml:3: cameras[0].encoder.maxrate: '1500000' for libx264: must be at least the bitrate 2000000"),
        ("cameras:\n  - id: a\n    encoder: {maxrate: 3000000}\n", "livepush.yaml:3: cameras[0].encoder.maxrate: '3000000' needs a unit, e.g. 3000000k"),
        ("cameras:\n  - id: a\n    encoder: {bufsize: 500ms}\n",
         "livepush.yaml:3: cameras[0].encoder.bufsize: '500ms' is not a buffer size; write bits like 1M or 800k, or a time like 0.5s (at most 10s)"),
        ("cameras:\n  - id: a\n    encoder: {bufsize: 20s}\n", "livepush.yaml:3: cameras[0].encoder.bufsize: '20s' is not a buffer size"),
        ("cameras:\n  - id: a\n    encoder: {bufsize: 0s}\n", "livepush.yaml:3: cameras[0].encoder.bufsize: '0s' is not a buffer size"),
        ("cameras:\n  - id: a\n    encoder: {bufsize: big}\n", "livepush.yaml:3: cameras[0].encoder.bufsize: 'big' is not a buffer size"),
        ("cameras:\n  - id: a\n    encoder: {bufsize: 1000000}\n", "livepush.yaml:3: cameras[0].encoder.bufsize: '1000000' is not a buffer size; write bits like 1M"),
        ("cameras:\n  - id: a\n    encoder: {name: libx264, tune: filmm}\n",
         "livepush.yaml:3: cameras[0].encoder.tune: 'filmm' for libx264: libx264 tunes are film, animation"),
        // `auto` may become libx264: its tune is checked as libx264 takes it.
        ("cameras:\n  - id: a\n    encoder:\n      bitrate: 1M\n      tune: zerolatencyy\n",
         "livepush.yaml:5: cameras[0].encoder.tune: 'zerolatencyy' for libx264: libx264 tunes are"),
        ("cameras:\n  - id: a\n    encoder: {tune: ''}\n", "livepush.yaml:3: cameras[0].encoder.tune: write a tune such as zerolatency or film, or none"),
        ("cameras:\n  - id: a\n    encoder: {threads: 65}\n", "livepush.yaml:3: cameras[0].encoder.threads: '65' must be 0 (the encoder decides) … 64"),
        ("cameras:\n  - id: a\n    encoder: {threads: two}\n", "livepush.yaml:3: cameras[0].encoder.threads: 'two' must be 0"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd}\n      - {name: sd, size: 640x360, bitrate: 500k, tune: grainy}\n",
         "livepush.yaml:5: cameras[0].renditions[1].tune: 'grainy' for libx264: libx264 tunes are"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, bitrate: 1M, maxrate: 900k}\n",
         "livepush.yaml:4: cameras[0].renditions[0].maxrate: '900000' for auto: must be at least the bitrate 1000000"),
        ("cameras:\n  - id: a\n    renditions:\n      - {name: hd, threads: -1}\n", "livepush.yaml:4: cameras[0].renditions[0].threads: '-1' must be 0"),
    ])
    func badValuesNameTheirLine(yaml: String, expected: String) {
        let error = #expect(throws: ConfigError.self) { try parser.parse(yaml) }
        #expect(error?.description.hasPrefix(expected) == true, "got: \(String(describing: error))")
    }
}
