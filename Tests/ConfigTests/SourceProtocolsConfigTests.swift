import Capture
import Config
import Testing

/// `source_protocols`: what libavformat may open for a `file:` source. `file` alone unless the
/// config widens it, only with known protocols, and only on a file source.
@Suite struct SourceProtocolsConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:])

    func camera(_ keys: String) throws -> CameraConfig {
        try #require(try parser.parse("cameras:\n  - id: a\n\(keys)").cameras.first)
    }

    /// What a `file:` source is opened with when the config says nothing.
    @Test func aFileSourceMayOpenOnlyFilesByDefault() throws {
        let camera = try camera("    source: file:/srv/clip.mp4\n")
        #expect(camera.captureConfig.fileProtocols == ["file"])
    }

    @Test func theConfigWidensItWithKnownProtocols() throws {
        let camera = try camera("    source: file:https://cdn.example/clip.mp4\n    source_protocols: [file, HTTPS, tcp, tls, tcp]\n")
        #expect(camera.captureConfig.fileProtocols == ["file", "https", "tcp", "tls"])
    }

    @Test(arguments: [
        ("    source: file:/srv/clip.mp4\n    source_protocols: [file, concat]\n", "'concat' is not a protocol"),
        ("    source: file:/srv/clip.mp4\n    source_protocols: []\n", "at least one protocol"),
        ("    source: file:/srv/clip.mp4\n    source_protocols: http\n", "expected a list"),
        ("    source: testpattern\n    source_protocols: [file, http]\n", "file: source only"),
    ])
    func anythingElseIsRefusedNamingTheKey(keys: String, message: String) {
        #expect {
            _ = try camera(keys)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.key.contains("source_protocols") && error.message.contains(message)
        }
    }
}
