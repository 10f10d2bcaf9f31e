import Codec
import Config
import Testing

/// A camera's `adapt:` block (CPU-overload adaptation): defaults, floors, and errors naming the line.
@Suite struct AdaptConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:], readFile: { _ in nil })

    @Test func readsTheFloorsAndTheUpAfterTime() throws {
        let config = try parser.parse("""
        cameras:
          - id: a
            size: 1920x1080
            fps: 60
            adapt: {cpu: true, min_size: 960x540, min_fps: 30, up_after: 1m}
        """)
        #expect(config.cameras[0].adapt == CPUAdaptationSettings(minimumWidth: 960, minimumHeight: 540, minimumFramesPerSecond: 30, upAfterSeconds: 60))
    }

    @Test func defaultsAndOff() throws {
        let on = try parser.parse("cameras:\n  - id: a\n    adapt: {cpu: true}\n")
        #expect(on.cameras[0].adapt == CPUAdaptationSettings())
        let off = try parser.parse("cameras:\n  - id: a\n    adapt: {cpu: false, min_fps: 10}\n")
        #expect(off.cameras[0].adapt == nil)
        #expect(try parser.parse("cameras:\n  - id: a\n").cameras[0].adapt == nil)
    }

    @Test(arguments: [
        ("cameras:\n  - id: a\n    adapt: {min_fps: 10}\n", "livepush.yaml:3: cameras[0].adapt: missing required key 'cpu'"),
        ("cameras:\n  - id: a\n    adapt: {cpu: yes please}\n", "livepush.yaml:3: cameras[0].adapt.cpu:"),
        ("cameras:\n  - id: a\n    adapt: {cpu: true, min_sise: 640x360}\n", "cameras[0].adapt.min_sise: unknown key 'min_sise'; did you mean 'min_size'?"),
        ("cameras:\n  - id: a\n    size: 1280x720\n    adapt:\n      cpu: true\n      min_size: 1920x1080\n",
         "livepush.yaml:6: cameras[0].adapt.min_size: min_size 1920x1080 is above the camera's size 1280x720; lower min_size"),
        ("cameras:\n  - id: a\n    adapt: {cpu: true, min_size: big}\n", "livepush.yaml:3: cameras[0].adapt.min_size:"),
        ("cameras:\n  - id: a\n    fps: 30\n    adapt:\n      cpu: true\n      min_fps: 60\n", "livepush.yaml:6: cameras[0].adapt.min_fps: min_fps 60 is above the camera's fps 30"),
        ("cameras:\n  - id: a\n    adapt: {cpu: true, up_after: soon}\n", "cameras[0].adapt.up_after: 'soon' is not a duration"),
    ])
    func errorsNameTheLine(yaml: String, expected: String) {
        do {
            _ = try parser.parse(yaml)
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.description.hasPrefix(expected) || error.description.contains(expected), "got: \(error.description)")
        }
    }
}
