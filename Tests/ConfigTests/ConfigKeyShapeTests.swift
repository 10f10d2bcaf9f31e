import Config
import Foundation
import Testing

/// Keys that may be collections are refused before Yams composes the file (its duplicate-key check
/// takes minutes on nested collection keys), while the same characters inside values still load.
@Suite struct ConfigKeyShapeTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:], readFile: { _ in nil })

    /// FuzzConfigYAML's reproducer (Fuzz/Corpus/FuzzConfigYAML/repro-nested-complex-keys): 2.3 KB of
    /// nested explicit keys kept Yams' composer busy past the fuzzer's 10 s limit (26 s in a release
    /// build). Refused at its first explicit key, on line 2.
    @Test func theFuzzersNestedComplexKeysAreRefusedAtTheirFirstLine() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/FuzzConfigYAML/repro-nested-complex-keys")
        let text = try #require(String(data: try Data(contentsOf: url), encoding: .utf8))
        parser.expectRefused(text, "livepush.yaml:2: an explicit key ('? '): livepush's keys are plain names")
    }

    @Test func everyKindOfCollectionKeyIsRefusedNamingItsLine() {
        parser.expectRefused("cameras:\n  - id: a\n    ? [x, y]\n    : 1\n", "livepush.yaml:3: an explicit key ('? ')")
        parser.expectRefused("cameras: []\n[a, b]: 1\n", "livepush.yaml:2: a flow collection ([…] or {…}) used as a key")
        parser.expectRefused("{a: 1}: 2\n", "livepush.yaml:1: a flow collection ([…] or {…}) used as a key")
        parser.expectRefused("x: {[a]: 1}\n", "livepush.yaml:1: a flow collection ([…] or {…}) used as a key")
        parser.expectRefused("x: {? a : 1}\n", "livepush.yaml:1: an explicit key ('? ')")
        parser.expectRefused("x: &k [1]\n*k : 2\n", "livepush.yaml:2: an alias ('*name') used as a key")
        parser.expectRefused("- - ? a\n", "livepush.yaml:1: an explicit key ('? ')")
        // "|" inside a flow collection is a plain character, not a block scalar hiding the next lines.
        parser.expectRefused("x: [|, a]\n [b]: 1\n", "livepush.yaml:2: a flow collection ([…] or {…}) used as a key")
    }

    /// The same characters in values, quotes, comments and block scalars are not keys: these files
    /// load (or fail for another reason, never for the shape of a key).
    @Test func theSameCharactersInValuesAreNotKeys() throws {
        let values = [
            "url: rtmp://host/app?key=x&a=[1]",
            "text: \"[a]: b ? c\"",
            "text: '? x: it''s [y]: z'",
            "text: |\n  ? not a key\n  [a]: b\n  'unclosed\nother: 1",
            "- name: >-\n    {a: b}: c\n  next: 1",
            "# ? a comment\nkey: value # [a]: b",
            "list: [a, b, {c: d}]\nmap: {\"a\":1, 'b': [2]}",
            "base: &defaults {bitrate: 2500k}\nuse: *defaults",
            "text: what? yes: no",
            "multi: \"line one\n  ? still quoted\"\nafter: 1",
        ]
        for yaml in values {
            do {
                _ = try parser.parse(yaml)
            } catch {
                #expect(!error.message.contains("keys are plain names"), "refused for a key's shape: \(yaml)\n\(error)")
                #expect(!error.message.isEmpty)
            }
        }
    }

    /// A whole config with quoted URLs, a flow list and an overlay whose text has brackets and a
    /// question mark still loads, and keeps those values as written.
    @Test func aConfigWithThoseCharactersInItsValuesLoads() throws {
        let config = try parser.parse("""
        allowed_hosts: [camera.local, studio.example]
        cameras:
          - id: front
            source: testpattern
            overlay:
              text: "[{camera}] live? %H:%M"
        """)
        #expect(config.allowedHosts == ["camera.local", "studio.example"])
        #expect(config.cameras.first?.overlay?.text == "[{camera}] live? %H:%M")
    }
}
