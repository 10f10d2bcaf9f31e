import Capture
import Config
import Testing

/// `source: rpicam:N` in YAML, and its controls checked at parse time with the line named.
@Suite struct RpicamConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:], readFile: { _ in nil })

    @Test func parsesACSICameraWithControls() throws {
        let config = try parser.parse("cameras:\n  - id: pi\n    source: rpicam:1\n    rotation: 180\n    controls:\n      brightness: 10\n      awb: daylight\n")
        #expect(config.cameras.first?.source == .rpicam(index: 1))
        #expect(config.cameras.first?.controls == ["brightness": "10", "awb": "daylight"])
    }

    @Test(arguments: [
        ("cameras:\n  - id: pi\n    source: rpicam:x\n", "livepush.yaml:3: cameras[0].source: unknown source 'rpicam:x'"),
        ("cameras:\n  - id: pi\n    source: rpicam:0\n    controls:\n      brightness: 300\n", "livepush.yaml:5: cameras[0].controls: invalid brightness '300'"),
        ("cameras:\n  - id: pi\n    source: rpicam:0\n    controls:\n      exposure_auto: 1\n", "cameras[0].controls: invalid control 'exposure_auto': rpicam cameras offer brightness"),
    ])
    func refusesBadRpicamSettings(yaml: String, expected: String) {
        do {
            _ = try parser.parse(yaml)
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.description.contains(expected), "got: \(error.description)")
        }
    }

    @Test func sourceSpecRoundTrips() throws {
        #expect(try SourceSpec(parsing: "rpicam:0") == .rpicam(index: 0))
        #expect(SourceSpec.rpicam(index: 3).description == "rpicam:3")
        #expect(throws: CaptureError.unknownSource("rpicam:-1")) { try SourceSpec(parsing: "rpicam:-1") }
    }
}
