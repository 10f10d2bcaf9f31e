import Config
import Testing

/// `start:` on an output: true by default, false keeps it stopped until the API starts it; any
/// other value is refused with its line.
@Suite struct OutputStartConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: ["YT": "abcd"], readFile: { _ in nil })

    static func yaml(_ start: String?) -> String {
        let key = start.map { ", start: \($0)" } ?? ""
        return "cameras:\n  - id: a\n    outputs:\n      - rtmp: {preset: youtube, key: env:YT\(key)}\n      - record: {path: /tmp/a.mp4\(key)}\n"
    }

    @Test(arguments: [(nil, true), ("true", true), ("false", false), ("no", false), ("on", true)] as [(String?, Bool)])
    func parsesTheValueWithTrueByDefault(start: String?, expected: Bool) throws {
        let outputs = try parser.parse(Self.yaml(start)).cameras[0].outputs
        #expect(outputs.map(\.startsWithCamera) == [expected, expected])
    }

    @Test(arguments: ["later", "0", "'maybe'"])
    func refusesANonBooleanWithItsLine(value: String) {
        do {
            _ = try parser.parse(Self.yaml(value))
            Issue.record("accepted start: \(value)")
        } catch {
            #expect(error.description.contains("livepush.yaml:4: cameras[0].outputs[0].rtmp.start:") && error.description.contains("must be true or false"),
                    "got: \(error.description)")
        }
    }

    /// What a reload compares: the same text gives the same output config, and flipping `start`
    /// is a change (the output is replaced and follows its new setting), while writing the default
    /// out is no change at all.
    @Test func roundTripsThroughReloadComparison() throws {
        let stopped = try parser.parse(Self.yaml("false"))
        #expect(try parser.parse(Self.yaml("false")) == stopped)
        #expect(try parser.parse(Self.yaml(nil)) == parser.parse(Self.yaml("true")))
        #expect(try parser.parse(Self.yaml("true")).cameras[0].outputs[0] != stopped.cameras[0].outputs[0])
    }
}
