import Config
import Testing

/// `backup:` with `backup_mode` on rtmp and srt outputs: `failover` (the default) keeps one output
/// that moves between ingests; `both` makes one output per ingest, `ID-backup-N`, each with the
/// settings of its own ingest; mistakes are refused naming their file, line and key.
@Suite struct BackupConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:])

    static func camera(_ output: String) -> String { "cameras:\n  - id: a\n    outputs:\n      - \(output)\n      - record: {path: a.mp4}\n" }

    @Test func failoverIsTheDefaultAndKeepsOneOutput() throws {
        let outputs = try parser.parse(Self.camera("rtmp: {url: rtmp://127.0.0.1/live, key: k, backup: [rtmp://b.example/live]}")).cameras[0].outputs
        #expect(outputs.map(\.id) == ["rtmp", "record"])
        #expect(outputs[0].connection.backupMode == .failover && outputs[0].ingest == nil)
        guard case let .rtmp(url, key, _) = outputs[0].backupIngests.first, outputs[0].backupIngests.count == 1 else {
            Issue.record("\(outputs[0].backupIngests)"); return
        }
        #expect(url == "rtmp://b.example/live" && key?.value == "k")
    }

    /// Each RTMP backup takes the output's key unless its URL names its own (then its key is nil
    /// and the URL keeps it); the primary keeps its own settings, without backups.
    @Test func bothMakesOneOutputPerIngest() throws {
        let outputs = try parser.parse(Self.camera("""
            rtmp: {id: yt, url: rtmp://a.example/live2, key: k, stall_timeout: 2s, backup_mode: both,
                     backup: ['rtmp://b.example/live2?backup=1', rtmps://c.example/app/own]}
            """)).cameras[0].outputs
        #expect(outputs.map(\.id) == ["yt", "yt-backup-1", "yt-backup-2", "record"])
        #expect(outputs.map(\.ingest) == [0, 1, 2, nil])
        guard case let .rtmp(_, primaryKey, _) = outputs[0].settings, case let .rtmp(url1, key1, _) = outputs[1].settings,
              case let .rtmp(url2, key2, _) = outputs[2].settings else { Issue.record("\(outputs)"); return }
        #expect(url1 == "rtmp://b.example/live2?backup=1" && key1 == primaryKey && key1?.value == "k")
        #expect(url2 == "rtmps://c.example/app/own" && key2 == nil)
        #expect(outputs.prefix(3).allSatisfy { $0.connection.stallTimeoutSeconds == 2 && $0.connection.backupURLs.isEmpty && $0.backupIngests.isEmpty })
        #expect(outputs[2].maskedTarget == "rtmps://c.example/app/***", "a backup's own key is masked: \(outputs[2].maskedTarget)")
    }

    /// Without `key:`, a backup naming only the application takes the key the output's url names
    /// (with the query that follows it, as RTMPURL splits it).
    @Test func aBackupTakesTheKeyInTheOutputsURL() throws {
        let outputs = try parser.parse(Self.camera("rtmp: {url: 'rtmp://a.example/live2/KEY?x=1', backup_mode: both, backup: [rtmp://b.example/live2]}"))
            .cameras[0].outputs
        guard case let .rtmp(url, key, _) = outputs[1].settings else { Issue.record("\(outputs)"); return }
        #expect(url == "rtmp://b.example/live2" && key?.value == "KEY?x=1")
        #expect(outputs[1].maskedTarget == "rtmp://b.example/live2/***", "\(outputs[1].maskedTarget)")
    }

    /// An SRT backup is the output's settings at another address, with its own streamid or passphrase if its URL gives one.
    @Test func srtBackupsTakeTheOutputsSettings() throws {
        let outputs = try parser.parse(Self.camera("""
            srt: {url: 'srt://a.example:9000?streamid=one&passphrase=primarysecret', latency: 300, backup_mode: both,
                    backup: ['srt://b.example:9001', 'srt://c.example:9002?streamid=three']}
            """)).cameras[0].outputs
        #expect(outputs.map(\.id) == ["srt", "srt-backup-1", "srt-backup-2", "record"])
        guard case let .srt(primary) = outputs[0].settings, case let .srt(first) = outputs[1].settings,
              case let .srt(second) = outputs[2].settings else { Issue.record("\(outputs)"); return }
        #expect(first.host == "b.example" && first.port == 9001 && first.streamID?.value == "one" && first.passphrase == primary.passphrase)
        #expect(first.latencyMilliseconds == 300)
        #expect(second.host == "c.example" && second.port == 9002 && second.streamID?.value == "three" && second.passphrase?.value == "primarysecret")
    }

    /// In failover mode an srt output stays one output, its backups and return wait kept for the sender.
    @Test func srtFailoverKeepsOneOutput() throws {
        let outputs = try parser.parse(Self.camera("srt: {url: 'srt://a.example:9000', backup: ['srt://b.example:9001'], backup_return_after: 3s}"))
            .cameras[0].outputs
        #expect(outputs.map(\.id) == ["srt", "record"])
        #expect(outputs[0].connection.backupMode == .failover && outputs[0].connection.backupReturnAfterSeconds == 3)
        guard case let .srt(backup) = outputs[0].backupIngests.first else { Issue.record("\(outputs[0].backupIngests)"); return }
        #expect(backup.host == "b.example" && backup.port == 9001)
    }

    @Test func mistakesAreRefusedAtTheirKey() {
        let rtmp = { (extra: String) in Self.camera("rtmp: {url: rtmp://127.0.0.1/live, key: k\(extra)}") }
        parser.expectRefused(rtmp(", backup: [rtmp://b.example/live], backup_mode: mirror"),
                             "livepush.yaml:4: cameras[0].outputs[0].rtmp.backup_mode: 'mirror' is not one of failover, both")
        parser.expectRefused(rtmp(", backup_mode: both"), "livepush.yaml:4: cameras[0].outputs[0].rtmp.backup_mode: backup_mode needs backup:")
        parser.expectRefused(rtmp(", backup: [rtmp://b.example/live], backup_mode: both, backup_return_after: 5s"),
                             "livepush.yaml:4: cameras[0].outputs[0].rtmp.backup_return_after: backup_return_after is for backup_mode: failover")
        parser.expectRefused(rtmp(", backup: []"), "livepush.yaml:4: cameras[0].outputs[0].rtmp.backup: list one or more backup ingest URLs")
        parser.expectRefused("cameras:\n  - id: a\n    outputs:\n      - rtmp: {url: rtmp://a/live, key: k, backup: [rtmp://b/live], backup_mode: both}\n"
                             + "      - record: {id: rtmp-backup-1, path: a.mp4}\n",
                             "livepush.yaml:4: cameras[0].outputs: output id 'rtmp-backup-1' is used twice")
        let srt = { (extra: String) in Self.camera("srt: {url: 'srt://a.example:9000', backup_mode: both\(extra)}") }
        parser.expectRefused(srt(", backup: ['srt://b.example:9001?latency=200']"),
                             "livepush.yaml:4: cameras[0].outputs[0].srt.backup[0]: a backup URL may give streamid and passphrase; 'latency'")
        parser.expectRefused(srt(", mode: listener, backup: ['srt://b.example:9001']"),
                             "livepush.yaml:4: cameras[0].outputs[0].srt.backup[0]: backups are for an SRT caller")
        parser.expectRefused(srt(", backup: ['rtmp://b.example/live']"), "livepush.yaml:4: cameras[0].outputs[0].srt.backup[0]: 'rtmp://b.example/…' must be srt://HOST:PORT")
        parser.expectRefused(Self.camera("record: {id: r, path: b.mp4, backup: [x]}"), "livepush.yaml:4: cameras[0].outputs[0].record.backup: unknown key")
    }
}
