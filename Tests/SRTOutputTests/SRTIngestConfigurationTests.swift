import Testing
@testable import SRTOutput

/// A backup ingest's connections use the output's settings (latency, key length, codec) at the
/// backup's address, with the backup's own stream ID and passphrase; index 0 is the output itself.
@Suite struct SRTIngestConfigurationTests {
    @Test func aBackupTakesTheOutputsSettingsAtItsAddress() {
        var configuration = SRTOutputConfiguration(host: "a.example", port: 9000, maskedTarget: "srt://a.example:9000?streamid=***")
        configuration.streamID = "one"
        configuration.passphrase = "primarysecret"
        configuration.latencyMilliseconds = 300
        configuration.backups = [.init(host: "b.example", port: 9001, streamID: "two", passphrase: nil, maskedTarget: "srt://b.example:9001?streamid=***")]
        let backup = configuration.ingest(1)
        #expect(backup.host == "b.example" && backup.port == 9001 && backup.maskedTarget == "srt://b.example:9001?streamid=***")
        #expect(backup.streamID == "two" && backup.passphrase == nil && backup.latencyMilliseconds == 300)
        let primary = configuration.ingest(0)
        #expect(primary.host == "a.example" && primary.port == 9000 && primary.streamID == "one" && primary.passphrase == "primarysecret")
        #expect(configuration.ingest(2).host == "a.example", "an index past the backups is the output itself")
    }
}
