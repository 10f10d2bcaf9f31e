import Codec
import Config
import Testing

/// `capture_time:` on rtmp, srt and rtp outputs: `sei` by default for srt and rtp, `none` for rtmp;
/// other kinds and other values are refused with their line.
@Suite struct CaptureTimeConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: ["YT": "abcd"], readFile: { _ in nil })

    static func yaml(_ value: String?) -> String {
        let key = value.map { ", capture_time: \($0)" } ?? ""
        return "cameras:\n  - id: a\n    outputs:\n      - rtmp: {preset: youtube, key: env:YT\(key)}\n"
            + "      - srt: {url: 'srt://127.0.0.1:9000'\(key)}\n      - rtp: {destination: '127.0.0.1:5004'\(key)}\n"
    }

    @Test(arguments: [(nil, [CaptureTimeSignal.none, .sei, .sei]), ("sei", [.sei, .sei, .sei]), ("none", [.none, .none, .none])])
    func parsesTheValueWithEachKindsDefault(value: String?, expected: [CaptureTimeSignal]) throws {
        #expect(try parser.parse(Self.yaml(value)).cameras[0].outputs.map(\.captureTime) == expected)
    }

    @Test func refusesAnotherValueWithItsLine() {
        do {
            _ = try parser.parse(Self.yaml("ntp"))
            Issue.record("accepted capture_time: ntp")
        } catch {
            #expect(error.description.contains("livepush.yaml:4: cameras[0].outputs[0].rtmp.capture_time: 'ntp' is not one of sei, none"),
                    "got: \(error.description)")
        }
    }

    @Test func isNotAKeyOfOtherKinds() {
        #expect(throws: ConfigError.self) {
            try parser.parse("cameras:\n  - id: a\n    outputs:\n      - record: {path: /tmp/a.mp4, capture_time: sei}\n")
        }
    }
}
