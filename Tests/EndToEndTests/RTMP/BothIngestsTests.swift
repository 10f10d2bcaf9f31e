import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// Two nginx-rtmp ingests and an rtmp output with `backup_mode: both`, beside a local recording
    /// of the same encode. The backup is killed mid-stream and restarted. The primary's recording
    /// never breaks: its frame codes are exactly the local recording's over the same span (every
    /// encoded frame, whatever the machine's speed dropped before the encoder) and all decode. The
    /// restarted backup's new recording starts at a keyframe and decodes in order. Status shows each
    /// ingest as its own output, labelled with its ingest.
    @Test func bothModeKeepsThePrimaryCompleteWhileTheBackupRestarts() throws {
        let fps = 30.0
        let primary = try NginxRTMPServer(), backup = try NginxRTMPServer()
        let directory = try TemporaryDirectory()
        let local = directory.file("local.mp4")
        let serve = try LivepushServe(directory: directory, cameras: """
          - id: cam0
            source: testpattern
            size: \(Self.width)x\(Self.height)
            fps: \(Int(fps))
            encoder: {bitrate: 500k, keyint: 1s, preset: ultrafast}
            outputs:
              - rtmp: {id: yt, url: rtmp://127.0.0.1:\(primary.port)/live, key: both, stall_timeout: 1s,
                       reconnect: {delay: 1s, max_delay: 2s}, backup: [rtmp://127.0.0.1:\(backup.port)/live], backup_mode: both}
              - record: {path: \(local)}
        """)
        defer { serve.close() }
        let log = { serve.process.errorOutput.suffix(2000) }
        let ingest = { (id: String) in (serve.output(id)?["ingest"] as? [String: Any]) ?? [:] }
        #expect(Self.waitForPackets(atLeast: Int(fps), timeoutSeconds: 20) { primary.recordings.first }, "\(log())")
        #expect(Self.waitForPackets(atLeast: Int(fps), timeoutSeconds: 20) { backup.recordings.first }, "\(log())")
        #expect(ingest("yt")["index"] as? Int == 0 && ingest("yt-backup-1")["index"] as? Int == 1, "\(ingest("yt")) \(ingest("yt-backup-1"))")
        #expect(ingest("yt")["mode"] as? String == "both" && ingest("yt-backup-1")["mode"] as? String == "both", "\(ingest("yt"))")
        #expect((ingest("yt-backup-1")["url"] as? String) == "rtmp://127.0.0.1:\(backup.port)/live/***", "\(ingest("yt-backup-1"))")

        backup.kill()
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { serve.output("yt-backup-1")?["state"] as? String == "reconnecting" },
                "\(serve.output("yt-backup-1") ?? [:])")
        #expect(serve.output("yt")?["state"] as? String == "running", "\(serve.output("yt") ?? [:])")
        let packetsAtKill = (try? FLVInspection(path: primary.recordings.first ?? ""))?.packets.count ?? 0
        // The primary goes on while the backup is down: another two seconds of frames.
        #expect(Self.waitForPackets(atLeast: packetsAtKill + 2 * Int(fps), timeoutSeconds: 20) { primary.recordings.first }, "\(log())")
        try backup.start()
        #expect(Self.waitForPackets(atLeast: Int(fps), timeoutSeconds: 20) { backup.recordings.dropFirst().first }, "\(log())")
        #expect(serve.stop() == 0, "\(log())")
        primary.waitForRecordingsToSettle()
        backup.waitForRecordingsToSettle()

        try #require(primary.recordings.count == 1 && backup.recordings.count == 2, "primary \(primary.recordings), backup \(backup.recordings)")
        let primaryCodes = try FLVInspection.frameNumbers(of: primary.recordings[0], width: Self.width, height: Self.height)
        let localCodes = try FLVInspection.frameNumbers(of: local, width: Self.width, height: Self.height).compactMap { $0 }
        #expect(primaryCodes.allSatisfy { $0 != nil }, "undecodable frames at the primary: \(primaryCodes.filter { $0 == nil }.count)")
        let sent = primaryCodes.compactMap { $0 }
        let (first, last) = (sent.first ?? 0, sent.last ?? 0)
        let encoded = localCodes.filter { (first...last).contains($0) }
        #expect(sent == encoded, "the primary has every encoded frame \(first)…\(last): \(sent.count) of \(encoded.count)")
        #expect(sent.count > packetsAtKill + Int(fps), "the primary went on while the backup was down: \(sent.count) frames")

        let restarted = backup.recordings[1]
        let restartedCodes = try FLVInspection.frameNumbers(of: restarted, width: Self.width, height: Self.height)
        #expect(try FLVInspection(path: restarted).packets.first?.isKey == true, "\(restarted) starts at a keyframe")
        #expect(FLVInspection.inOrder(restartedCodes) && restartedCodes.count >= Int(fps), "restarted backup: \(restartedCodes.count) frames")
        print("both: primary \(sent.count) frames complete while the backup restarted; the backup's second recording \(restartedCodes.count) frames")
    }
}
