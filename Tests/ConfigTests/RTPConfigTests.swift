import Config
import Testing

/// `rtp:` outputs' link keys.
@Suite struct RTPConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:])

    /// An rtp output's RTCP return port and stall timeout.
    @Test func anRTPOutputTakesALocalPortAndAStallTimeout() throws {
        let config = try parser.parse("cameras:\n  - id: a\n    outputs:\n      - rtp: {destination: '127.0.0.1:5004', local_port: 5010, stall_timeout: 8s}\n")
        let connection = try #require(config.cameras.first?.outputs.first).connection
        #expect(connection.localPort == 5010 && connection.stallTimeoutSeconds == 8)
        #expect(throws: ConfigError.self) { try parser.parse("cameras:\n  - id: a\n    outputs:\n      - rtp: {destination: '127.0.0.1:5004', local_port: 70000}\n") }
    }
}
