import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// Two nginx-rtmp ingests, a freezing proxy in front of the primary, and an rtmp output with the
    /// second as its backup (1 s stall timeout, keyint 1 s, the primary back after 2 s reachable).
    /// The primary freezes and is then killed: the backup's recording takes the stream from a
    /// keyframe, within a stall timeout plus a keyframe interval of stream time (frame codes are
    /// capture ticks, so a slow machine does not stretch them). The primary restarts: livepush
    /// probes it, moves back at a keyframe, make before break, and the backup's last frame is
    /// followed by the primary's first. Every frame of the three recordings decodes, in order.
    @Test func aFrozenThenKilledPrimaryFailsOverToTheBackupAndTheStreamReturns() throws {
        let fps = 30.0, keyint = 1.0, stallTimeout = 1.0
        let primary = try NginxRTMPServer(), backup = try NginxRTMPServer()
        let proxy = try StallingProxy(to: primary.port)
        defer { proxy.close() }
        let serve = try LivepushServe(directory: try TemporaryDirectory(), cameras: """
          - id: cam0
            source: testpattern
            size: \(Self.width)x\(Self.height)
            fps: \(Int(fps))
            encoder: {bitrate: 500k, keyint: \(Int(keyint))s, preset: ultrafast}
            outputs:
              - rtmp: {url: rtmp://127.0.0.1:\(proxy.port)/live, key: fo, stall_timeout: \(Int(stallTimeout))s,
                       backup: [rtmp://127.0.0.1:\(backup.port)/live], backup_return_after: 2s}
        """)
        defer { serve.close() }
        let log = { serve.process.errorOutput.suffix(2000) }
        let ingest = { (serve.output("rtmp")?["ingest"] as? [String: Any]) ?? [:] }
        #expect(Self.waitForPackets(atLeast: Int(fps), timeoutSeconds: 20) { primary.recordings.first }, "\(log())")
        #expect(ingest()["index"] as? Int == 0 && ingest()["reason"] as? String == "started", "\(ingest())")

        let frozen = ContinuousClock.now
        proxy.stall()
        #expect(Self.waitForPackets(atLeast: 1, timeoutSeconds: 10) { backup.recordings.first }, "\(log())")
        let firstAtBackup = ContinuousClock.now
        primary.kill()
        #expect(serve.process.waitUntil(timeoutSeconds: 5) { ingest()["index"] as? Int == 1 }, "\(ingest())")
        #expect((ingest()["reason"] as? String)?.contains("stalled") == true, "\(ingest())")
        #expect((ingest()["url"] as? String) == "rtmp://127.0.0.1:\(backup.port)/live/<key redacted>", "\(ingest())")
        #expect(serve.process.errorOutput.contains("moving to backup ingest 1 now"), "\(log())")

        try primary.start()
        #expect(Self.waitForPackets(atLeast: Int(fps), timeoutSeconds: 15) { primary.recordings.dropFirst().first }, "\(log())")
        #expect(ingest()["index"] as? Int == 0 && ingest()["reason"] as? String == "primary back", "\(ingest())")
        #expect(serve.process.errorOutput.contains("back on the primary ingest"), "\(log())")
        #expect(serve.stop() == 0, "\(log())")
        primary.waitForRecordingsToSettle()
        backup.waitForRecordingsToSettle()

        let files = [primary.recordings.first, backup.recordings.first, primary.recordings.dropFirst().first].compactMap { $0 }
        try #require(files.count == 3 && backup.recordings.count == 1, "primary \(primary.recordings), backup \(backup.recordings)")
        let codes = try files.map { try FLVInspection.frameNumbers(of: $0, width: Self.width, height: Self.height) }
        // The primary's first recording ends where nginx was killed: a torn last tag may not decode.
        let beforeFreeze = codes[0].compactMap { $0 }
        #expect(codes[0].dropLast().allSatisfy { $0 != nil } && codes[1].allSatisfy { $0 != nil } && codes[2].allSatisfy { $0 != nil },
                "undecodable frames per file: \(codes.map { file in file.filter { $0 == nil }.count })")
        let all = beforeFreeze + codes[1].compactMap { $0 } + codes[2].compactMap { $0 }
        #expect(FLVInspection.inOrder(all), "frame codes across the moves are in order")
        for file in files.dropFirst() {
            #expect(try FLVInspection(path: file).packets.first?.isKey == true, "\(file) starts at a keyframe")
        }
        let (lastBefore, firstOnBackup) = (Int(beforeFreeze.last ?? 0), Int(codes[1].first.flatMap { $0 } ?? 0))
        let (lastOnBackup, firstBack) = (Int(codes[1].last.flatMap { $0 } ?? 0), Int(codes[2].first.flatMap { $0 } ?? 0))
        // Stream time lost to the failover: the stall timeout, the link check's half-second period,
        // then a keyframe on the new connection (requested at once; at the latest the next scheduled one).
        let failoverSeconds = Double(firstOnBackup - lastBefore) / fps
        #expect(failoverSeconds <= stallTimeout + 0.5 + keyint, "failover took \(failoverSeconds) s of stream time")
        // Make before break: the backup carries every frame up to the keyframe the primary starts with.
        #expect(firstBack - lastOnBackup >= 1 && firstBack - lastOnBackup <= 3, "back on the primary: codes \(lastOnBackup) → \(firstBack)")
        print("failover: \(String(format: "%.3f", failoverSeconds)) s of stream time from the primary's last frame to the backup's first"
              + " (freeze → first frame recorded at the backup, polled: \(String(format: "%.2f", Double((firstAtBackup - frozen) / .milliseconds(1)) / 1000)) s);"
              + " return to the primary: \(firstBack - lastOnBackup - 1) frames missing")
    }
}
