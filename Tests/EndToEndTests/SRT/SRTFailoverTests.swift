import Foundation
import Testing
import TestSupport

extension LivepushSRTTests {
    /// `livepush serve` with an srt output and a backup (failover, 1 s stall timeout, back after 2 s).
    /// The primary's ffmpeg listener is killed: the stream moves to the backup's listener, whose file
    /// starts at a keyframe. A new receiver takes the primary's port (srt-live-transmit, which
    /// listens again after each caller, as the probes connect and leave): livepush probes it, moves
    /// back and the backup's connection closes. Status names the live ingest and why at each step;
    /// the three files decode, their frame codes in order across the moves, and no frame is lost
    /// at the return (against a local recording of the same encode).
    @Test func aKilledPrimaryFailsOverToTheBackupAndTheStreamReturns() throws {
        let (primaryPort, backupPort) = (try SRTPeers.freePort(), try SRTPeers.freePort())
        let dir = try TemporaryDirectory()
        let (firstPrimaryFile, backupFile, secondPrimaryFile) = (dir.file("a1.ts"), dir.file("b.ts"), dir.file("a2.ts"))
        let local = dir.file("local.mp4")
        let primary = try SRTPeers.ffmpegListener(port: primaryPort, writingTo: firstPrimaryFile, seconds: 120)
        let backup = try SRTPeers.ffmpegListener(port: backupPort, writingTo: backupFile, seconds: 120)
        let serve = try LivepushServe(directory: dir, cameras: """
          - id: cam0
            source: testpattern
            size: \(SRTPeers.width)x\(SRTPeers.height)
            fps: \(SRTPeers.fps)
            encoder: {bitrate: 1000k, keyint: 1s, preset: ultrafast}
            outputs:
              - srt: {url: 'srt://127.0.0.1:\(primaryPort)', stall_timeout: 1s, reconnect: {delay: 1s, max_delay: 2s},
                      backup: ['srt://127.0.0.1:\(backupPort)'], backup_return_after: 2s}
              - record: {path: \(local)}
        """)
        defer { serve.close() }
        let log = { serve.process.errorOutput.suffix(2000) }
        let ingest = { (serve.output("srt")?["ingest"] as? [String: Any]) ?? [:] }
        #expect(SRTPeers.waitForFrames(in: firstPrimaryFile, atLeast: SRTPeers.fps, timeoutSeconds: 30), "\(log())")
        #expect(ingest()["index"] as? Int == 0 && ingest()["reason"] as? String == "started", "\(ingest())")

        // Killed with its process tree (ffmpeg runs under `timeout`), as a crashed receiver.
        ProcessTree.terminate(primary.process.processIdentifier, graceSeconds: 0)
        #expect(SRTPeers.waitForFrames(in: backupFile, atLeast: SRTPeers.fps, timeoutSeconds: 30), "\(log())")
        #expect(ingest()["index"] as? Int == 1 && ingest()["url"] as? String == "srt://127.0.0.1:\(backupPort)", "\(ingest())")
        #expect(serve.process.errorOutput.contains("moving to backup ingest 1 now"), "\(log())")

        let returned = try BackgroundProcess("timeout", ["-k", "2", "120", "sh", "-c",
                                                         "exec '\(try ExternalTool.require("srt-live-transmit"))' -q -a:yes 'srt://:\(primaryPort)?mode=listener' file://con > '\(secondPrimaryFile)'"])
        #expect(UDPPortWait.waitUntilBound([primaryPort], by: returned), "srt-live-transmit never listened: \(returned.errorOutput.suffix(800))")
        #expect(serve.process.waitUntil(timeoutSeconds: 30) { ingest()["reason"] as? String == "primary back" }, "\(ingest()); \(log())")
        #expect(ingest()["index"] as? Int == 0, "\(ingest())")
        #expect(SRTPeers.waitForFrames(in: secondPrimaryFile, atLeast: SRTPeers.fps, timeoutSeconds: 30), "\(log())")
        #expect(serve.stop() == 0, "\(log())")
        #expect(backup.wait(timeoutSeconds: 10) != nil, "the backup's connection closed once the stream was back on the primary")
        ProcessTree.terminate(returned.process.processIdentifier)

        let codes = try [firstPrimaryFile, backupFile, secondPrimaryFile].map { try SRTPeers.frameNumbers(of: $0) }
        // The first primary's file ends where its receiver was killed, and the last one where
        // srt-live-transmit was stopped (it listens again after each caller, so it never ends with the
        // stream, and the tail of its buffered output is lost): their last frame may be torn.
        let whole = [Array(codes[0].dropLast()), codes[1], Array(codes[2].dropLast())]
        #expect(whole.allSatisfy { $0.allSatisfy { $0 != nil } }, "undecodable frames per file: \(whole.map { file in file.filter { $0 == nil }.count })")
        #expect(FrameCodeReadBack.inOrder(whole.flatMap { $0 }), "frame codes across the moves are in order: \(whole.map { $0.suffix(3) })")
        #expect(codes[1].count >= SRTPeers.fps && codes[2].count >= SRTPeers.fps, "\(codes.map(\.count)) frames per file")
        // The return loses nothing: the backup's receiver got every frame encoded before the primary's
        // first (the backup's connection stays open until its receiver has played them out), judged
        // against a local recording of the same encode, so a frame the encoder dropped is no gap.
        let encoded = try FLVInspection.frameNumbers(of: local, width: SRTPeers.width, height: SRTPeers.height).compactMap { $0 }
        if let lastOnBackup = codes[1].last.flatMap({ $0 }), let firstBack = codes[2].first.flatMap({ $0 }) {
            let between = encoded.filter { $0 > lastOnBackup && $0 < firstBack }
            #expect(firstBack > lastOnBackup && between.isEmpty,
                    "return to the primary: backup ends at \(lastOnBackup), primary resumes at \(firstBack); encoded but received by neither: \(between)")
        } else {
            Issue.record("no frame codes at the return: \(codes[1].suffix(3)) → \(codes[2].prefix(3))")
        }
    }
}
