import Foundation
import Testing
import TestSupport

/// The real `livepush stream` binary pushing MPEG-TS over SRT to independent receivers on
/// 127.0.0.1 (ffmpeg's libsrt, srt-live-transmit), read back with ffprobe and the frame codes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct LivepushSRTTests {
    static func finish(_ livepush: BackgroundProcess) -> String {
        let status = livepush.wait(timeoutSeconds: 45)
        #expect(status == 0, "livepush exited \(String(describing: status)): \(livepush.errorOutput.suffix(3000))")
        return livepush.output + livepush.errorOutput
    }

    /// H.264 + AAC arrive; every frame from the first keyframe on, in order, none missing but those
    /// the summary counts as dropped before the output (a late frame at capture or at the encoder is
    /// dropped by design, and its code with it; the SRT path itself must lose none).
    static func expectWholeStream(_ path: String, seconds: Double, log: String) throws {
        let codecs = try SRTPeers.codecs(of: path)
        #expect(codecs["video"] == "h264" && codecs["audio"] == "aac", "\(codecs)")
        let numbers = try SRTPeers.frameNumbers(of: path)
        let known = numbers.compactMap { $0 }
        #expect(FrameCodeReadBack.inOrder(numbers), "frame codes: \(numbers.prefix(10))…")
        try expectSentFramesArrived(numbers, seconds: seconds, log: log)
    }

    /// The frames the receiver read back against livepush's summary: every frame the SRT output sent
    /// arrived, and a code is missing only where the summary counts a drop (late at capture or at the
    /// encoder, or by the output's queue while a loaded machine fell behind). Counts, not seconds, so
    /// a slow start on a busy machine cannot fail it; the SRT path itself must lose nothing.
    static func expectSentFramesArrived(_ numbers: [UInt32?], seconds: Double, log: String) throws {
        let known = numbers.compactMap { $0 }
        let missing = zip(known, known.dropFirst()).reduce(0) { $0 + Int($1.1) - Int($1.0) - 1 }
        let beforeOutput = log.firstMatch(of: /dropped (\d+) at capture and (\d+) at/).map { (Int($0.1) ?? 0) + (Int($0.2) ?? 0) }
        let output = try #require(log.firstMatch(of: /srt:\S+: \w+, (\d+) frames, \d+ bytes, (\d+) dropped, (\d+) reconnects/),
                                  "no SRT summary line: \(log.suffix(800))")
        let (sent, droppedByOutput, reconnects) = (Int(output.1) ?? 0, Int(output.2) ?? 0, Int(output.3) ?? -1)
        #expect(reconnects == 0, "\(log.suffix(800))")
        #expect(missing <= (beforeOutput ?? 0) + droppedByOutput,
                "\(missing) frames missing, \(String(describing: beforeOutput)) dropped before the output and \(droppedByOutput) by it: \(known.prefix(10))…; \(log.suffix(800))")
        #expect(sent > 0 && numbers.count >= sent - 3, "\(numbers.count) frames read back of \(sent) sent in \(seconds) s; \(log.suffix(800))")
    }

    @Test(arguments: [nil, "correct horse battery"])
    func pushesToFFmpegAsListener(passphrase: String?) throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let receiver = try SRTPeers.ffmpegListener(port: port, passphrase: passphrase, writingTo: dir.file("out.ts"))
        let query = passphrase.map { "?passphrase=\($0.replacingOccurrences(of: " ", with: "%20"))&pbkeylen=32&latency=200" } ?? ""
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(port)\(query)"], seconds: 6)
        let log = Self.finish(livepush)
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        if let passphrase { #expect(!log.contains(passphrase), "the passphrase must not be printed") }
        #expect(log.contains(passphrase == nil ? "srt:srt://127.0.0.1:\(port):" : "srt:srt://127.0.0.1:\(port)?passphrase=***&pbkeylen=32&latency=200:"), "\(log.suffix(800))")
        try Self.expectWholeStream(dir.file("out.ts"), seconds: 6, log: log)
        // libsrt's figures reach the summary; the receiver acknowledged what it got.
        let acks = log.firstMatch(of: /(\d+) ACKs/).flatMap { Int($0.1) } ?? 0
        #expect(acks > 0, "\(log.suffix(800))")
    }

    /// HEVC (libx265) in the same transport stream, read back by ffmpeg.
    @Test func carriesHEVC() throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let receiver = try SRTPeers.ffmpegListener(port: port, writingTo: dir.file("hevc.ts"))
        let log = Self.finish(try SRTPeers.stream(["srt://127.0.0.1:\(port)"], seconds: 4, extra: ["--encoder", "libx265", "--preset", "ultrafast"]))
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        let codecs = try SRTPeers.codecs(of: dir.file("hevc.ts"))
        #expect(codecs["video"] == "hevc" && codecs["audio"] == "aac", "\(codecs); \(log.suffix(800))")
        let numbers = try SRTPeers.frameNumbers(of: dir.file("hevc.ts"))
        #expect(FrameCodeReadBack.inOrder(numbers), "frame codes: \(numbers.prefix(10))…")
        try Self.expectSentFramesArrived(numbers, seconds: 4, log: log)
    }

    /// `audio_codec=opus`: Opus in the transport stream beside H.264, read back by ffmpeg and ffprobe.
    @Test func carriesOpus() throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let path = dir.file("opus.ts")
        let receiver = try SRTPeers.ffmpegListener(port: port, writingTo: path)
        let log = Self.finish(try SRTPeers.stream(["srt://127.0.0.1:\(port)?audio_codec=opus"], seconds: 4))
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        #expect(log.contains("srt:srt://127.0.0.1:\(port)?audio_codec=opus:"), "\(log.suffix(800))")
        let codecs = try SRTPeers.codecs(of: path)
        #expect(codecs["video"] == "h264" && codecs["audio"] == "opus", "\(codecs); \(log.suffix(800))")
        // Opus packets are 20 ms each: about 50 a second reach the file, with their timestamps.
        let packets = try FFmpegCLI.packetTimes(path)
        #expect(packets.count >= 3 * 50, "\(packets.count) Opus packets in 4 s")
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $1 > $0 }, "Opus timestamps increase")
        let decoded = try ExternalTool.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "null", "-"],
                                           timeoutSeconds: 30, check: false)
        #expect(decoded.status == 0 && decoded.errorOutput.isEmpty, "libopus decodes every packet: \(decoded.errorOutput.suffix(800))")
        let numbers = try SRTPeers.frameNumbers(of: path)
        #expect(FrameCodeReadBack.inOrder(numbers) && numbers.count >= 3 * SRTPeers.fps, "\(numbers.count) frames; \(log.suffix(800))")
    }

    /// srt-live-transmit (srt-tools) listening and relaying into a file.
    @Test func relaysThroughSRTLiveTransmit() throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        // srt-live-transmit writes files only as file://con (its stdout); -a:no ends it with the stream.
        let relay = try BackgroundProcess("timeout", ["-k", "2", "60", "sh", "-c",
                                                      "exec '\(try ExternalTool.require("srt-live-transmit"))' -q -a:no 'srt://:\(port)?mode=listener' file://con > '\(dir.file("relayed.ts"))'"])
        #expect(UDPPortWait.waitUntilBound([port], by: relay), "srt-live-transmit never listened: \(relay.errorOutput.suffix(800))")
        let log = Self.finish(try SRTPeers.stream(["srt://127.0.0.1:\(port)?latency=120"], seconds: 5))
        #expect(relay.wait(timeoutSeconds: 10) != nil, "srt-live-transmit did not see the end of the stream")
        try Self.expectWholeStream(dir.file("relayed.ts"), seconds: 5, log: log)
    }

    /// A receiver with another passphrase: the output says the passphrase was refused, not "timeout".
    @Test func aWrongPassphraseIsNamed() throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let receiver = try SRTPeers.ffmpegListener(port: port, passphrase: "the right passphrase", writingTo: dir.file("out.ts"))
        // Kept listening for the whole run: released earlier, its deinit would stop it before livepush dials.
        let log = try withExtendedLifetime(receiver) {
            Self.finish(try SRTPeers.stream(["srt://127.0.0.1:\(port)?passphrase=a%20wrong%20passphrase"], seconds: 3))
        }
        #expect(log.contains("rejected the passphrase"), "\(log.suffix(1200))")
        #expect(!log.contains("a wrong passphrase") && !log.contains("a%20wrong"), "the passphrase must not be printed")
    }

    /// The receiver is killed mid-stream and a new one takes its port: livepush dials again by itself
    /// and the new file starts on a keyframe, its frame codes continuing in order.
    @Test func resumesWhenTheListenerRestarts() throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let first = try SRTPeers.ffmpegListener(port: port, writingTo: dir.file("first.ts"))
        // Stopped with SIGINT once the second file holds its frames; the duration only bounds a hang.
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(port)"], seconds: 90)
        // The first file holds frames before its receiver goes (ffmpeg writes once it has probed its input).
        #expect(SRTPeers.waitForFrames(in: dir.file("first.ts"), atLeast: SRTPeers.fps, timeoutSeconds: 40),
                "the first receiver wrote no frames: \(first.errorOutput.suffix(800)); \(livepush.errorOutput.suffix(800))")
        // Killed, as a crashed or restarted receiver: livepush hears nothing more (libsrt's peer
        // idle timeout, 5 s, finds the loss).
        ProcessTree.terminate(first.process.processIdentifier, graceSeconds: 0)
        let second = try SRTPeers.ffmpegListener(port: port, writingTo: dir.file("second.ts"))
        #expect(SRTPeers.waitForFrames(in: dir.file("second.ts"), atLeast: 4 * SRTPeers.fps, timeoutSeconds: 60),
                "the second receiver wrote too few frames: \(livepush.errorOutput.suffix(1200))")
        livepush.interrupt()
        let log = Self.finish(livepush)
        #expect(second.wait(timeoutSeconds: 10) != nil, "the second receiver did not see the end")
        #expect(log.contains("1 reconnects"), "\(log.suffix(1200))")
        let before = try SRTPeers.frameNumbers(of: dir.file("first.ts")).compactMap { $0 }
        let after = try SRTPeers.frameNumbers(of: dir.file("second.ts"))
        #expect(FrameCodeReadBack.inOrder(after), "\(after.prefix(10))…")
        #expect(after.count >= 4 * SRTPeers.fps, "\(after.count) frames after the restart; \(log.suffix(800))")
        #expect((after.first ?? 0).map { $0 > (before.last ?? .max) } ?? false, "the second file continues the first: \(before.suffix(3)) → \(after.prefix(3))")
        let probe = try FFmpegCLI.probe(dir.file("second.ts"), extra: ["-select_streams", "v:0", "-show_frames", "-read_intervals", "%+#1"])
        let firstFrame = (probe["frames"] as? [[String: Any]])?.first
        #expect(firstFrame?["key_frame"] as? Int == 1, "the new connection starts on a keyframe: \(String(describing: firstFrame))")
    }

    /// mode=listener: livepush waits and a receiver (ffmpeg as caller) dials in.
    @Test func aReceiverDialsIntoListenerMode() throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        // Stopped with SIGINT once the receiver holds its frames; the duration only bounds a hang.
        let livepush = try SRTPeers.stream(["srt://127.0.0.1:\(port)?mode=listener"], seconds: 90)
        #expect(UDPPortWait.waitUntilBound([port], by: livepush), "livepush never listened: \(livepush.errorOutput.suffix(800))")
        let receiver = try BackgroundProcess("timeout", ["-k", "2", "60", try ExternalTool.require("ffmpeg"), "-nostdin", "-v", "error"]
                                             + SRTPeers.receiving(from: "srt://127.0.0.1:\(port)", to: dir.file("in.ts")))
        #expect(SRTPeers.waitForFrames(in: dir.file("in.ts"), atLeast: 4 * SRTPeers.fps, timeoutSeconds: 60),
                "the receiver wrote too few frames: \(receiver.errorOutput.suffix(800)); \(livepush.errorOutput.suffix(800))")
        livepush.interrupt()
        let log = Self.finish(livepush)
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        let codecs = try SRTPeers.codecs(of: dir.file("in.ts"))
        #expect(codecs["video"] == "h264" && codecs["audio"] == "aac", "\(codecs); \(log.suffix(800))")
        let numbers = try SRTPeers.frameNumbers(of: dir.file("in.ts"))
        #expect(FrameCodeReadBack.inOrder(numbers) && numbers.count >= 4 * SRTPeers.fps, "\(numbers.count) frames; \(log.suffix(800))")
    }
}
