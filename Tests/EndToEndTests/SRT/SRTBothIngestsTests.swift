import Foundation
import Testing
import TestSupport

extension LivepushSRTTests {
    /// `livepush stream srt://A --backup srt://B --backup-mode both` with a local recording beside:
    /// two ffmpeg listeners take the same encode. B is killed mid-stream and a new listener takes
    /// its port. A's file never breaks: its frame codes are exactly the local recording's over the
    /// same span and all decode. B's second file decodes from its first frame, in order.
    @Test func bothModeKeepsOneIngestCompleteWhileTheOtherRestarts() throws {
        let (primaryPort, backupPort) = (try SRTPeers.freePort(), try SRTPeers.freePort())
        let dir = try TemporaryDirectory()
        let (primaryFile, firstBackupFile, secondBackupFile, local) = (dir.file("a.ts"), dir.file("b1.ts"), dir.file("b2.ts"), dir.file("local.mp4"))
        let primary = try SRTPeers.ffmpegListener(port: primaryPort, writingTo: primaryFile, seconds: 120)
        let backup = try SRTPeers.ffmpegListener(port: backupPort, writingTo: firstBackupFile, seconds: 120)
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(primaryPort)"], seconds: 60,
                                           extra: ["--backup", "srt://127.0.0.1:\(backupPort)", "--backup-mode", "both",
                                                   "--rtmp-stall-timeout", "1s", "--record", local])
        defer { livepush.kill(signal: SIGKILL) }
        let log = { (livepush.output + livepush.errorOutput).suffix(2000) }
        #expect(SRTPeers.waitForFrames(in: primaryFile, atLeast: SRTPeers.fps, timeoutSeconds: 30), "\(log())")
        #expect(SRTPeers.waitForFrames(in: firstBackupFile, atLeast: SRTPeers.fps, timeoutSeconds: 30), "\(log())")

        // Killed with its process tree (ffmpeg runs under `timeout`), as a crashed receiver.
        ProcessTree.terminate(backup.process.processIdentifier, graceSeconds: 0)
        let framesAtKill = (try? SRTPeers.frameNumbers(of: primaryFile))?.count ?? 0
        #expect(SRTPeers.waitForFrames(in: primaryFile, atLeast: framesAtKill + 2 * SRTPeers.fps, timeoutSeconds: 30), "\(log())")
        let restarted = try SRTPeers.ffmpegListener(port: backupPort, writingTo: secondBackupFile, seconds: 120)
        #expect(SRTPeers.waitForFrames(in: secondBackupFile, atLeast: SRTPeers.fps, timeoutSeconds: 30), "\(log())")
        livepush.interrupt()
        let text = Self.finish(livepush)
        #expect(primary.wait(timeoutSeconds: 10) != nil && restarted.wait(timeoutSeconds: 10) != nil, "the listeners saw the end of the stream")

        let primaryCodes = try SRTPeers.frameNumbers(of: primaryFile)
        #expect(primaryCodes.allSatisfy { $0 != nil }, "undecodable frames at the primary: \(primaryCodes.filter { $0 == nil }.count)")
        let sent = primaryCodes.compactMap { $0 }
        let (first, last) = (sent.first ?? 0, sent.last ?? 0)
        let encoded = try SRTPeers.frameNumbers(of: local).compactMap { $0 }.filter { (first...last).contains($0) }
        #expect(sent == encoded, "the primary has every encoded frame \(first)…\(last): \(sent.count) of \(encoded.count); \(text.suffix(1500))")
        let secondCodes = try SRTPeers.frameNumbers(of: secondBackupFile)
        #expect(FrameCodeReadBack.inOrder(secondCodes) && secondCodes.count >= SRTPeers.fps, "restarted backup: \(secondCodes.count) frames")
        #expect(text.contains("srt-backup-1"), "the backup is its own output in the summary: \(text.suffix(1500))")
    }
}
