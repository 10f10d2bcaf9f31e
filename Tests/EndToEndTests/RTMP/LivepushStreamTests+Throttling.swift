import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// A clip of temporal noise over moving colour bars: unlike the test pattern (which x264 squeezes to
    /// ~90 kbit/s whatever the target), it costs the full bitrate, so a thin link really falls behind.
    static func makeNoisyClip(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("noise.mp4")
        try FFmpegCLI.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30,noise=alls=40:allf=t+u",
                              "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-pix_fmt", "yuv420p", "-y", path],
                             timeoutSeconds: 60)
        return path
    }

    /// `livepush stream` of the noisy clip (or `source`) at 2 Mbit/s with 128 kbit/s of AAC, through a
    /// proxy that lets 600 kbit/s pass, to a fresh nginx-rtmp.
    struct ThrottledRun {
        let directory: TemporaryDirectory
        let nginx: NginxRTMPServer
        let proxy: ThrottlingProxy
        let livepush: BackgroundProcess

        init(seconds: Int, source: String? = nil, extra: [String]) throws {
            directory = try TemporaryDirectory()
            let source = try source ?? "file:\(LivepushStreamTests.makeNoisyClip(in: directory))?loop"
            nginx = try NginxRTMPServer()
            proxy = try ThrottlingProxy(to: nginx.port, bytesPerSecond: 600_000 / 8)
            livepush = try LivepushStreamTests.stream(["rtmp://127.0.0.1:\(proxy.port)/live/key"], seconds: seconds,
                                                      source: source, bitrate: "2000k", extra: ["--audio", "tone"] + extra)
        }
    }

    /// The number before `suffix` in the RTMP output's summary, e.g. "42 dropped" → 42.
    static func count(_ suffix: String, in log: String) throws -> Int {
        let fields = log.split(separator: "\n").filter { $0.contains("rtmp:") }.flatMap { $0.split { $0 == "," || $0 == ";" } }
        let field = try #require(fields.last { $0.hasSuffix(" \(suffix)") }, "no '\(suffix)' in \(log.suffix(800))")
        return try #require(Int(field.split(separator: " ").dropLast().last ?? ""), "\(field)")
    }

    /// A 2 Mbit/s stream with 128 kbit/s of audio through a 600 kbit/s link: frames are dropped by GOP (never a
    /// frame whose reference went: ffmpeg decodes what nginx received without an error), audio is all kept,
    /// the drops are counted in the summary and logged, and the encoder is asked for a keyframe after them.
    @Test func dropsByGOPOnAThrottledLink() throws {
        let seconds = 10
        // The busy test pattern costs the full bitrate too, and its frame codes count the encoder's frames.
        let run = try ThrottledRun(seconds: seconds, source: "testpattern:busy", extra: ["--send-queue", "1s"])
        defer { run.proxy.close() }
        let (nginx, log) = (run.nginx, try Self.finish(run.livepush, within: 70))

        let dropped = try Self.count("dropped", in: log)
        #expect(dropped > 60, "\(log.suffix(1500))")
        #expect(try Self.count("audio", in: log) == 0, "audio is never dropped while it fits the link")
        #expect(try Self.count("reconnects", in: log) == 0, "a slow link is not a dead one")
        let report = log.split(separator: "\n").filter { $0.contains("the link is behind") }
        #expect(!report.isEmpty, "drops are logged as they happen")
        #expect(report.contains { !$0.contains("keyframesRequested=0") }, "a keyframe is requested after drops: \(report.prefix(3))")

        nginx.waitForRecordingsToSettle()
        let file = try #require(nginx.recordings.first)
        // Every packet decoded; only the decoders' complaints count. The null muxer's own timestamp checks
        // ("non monotonically increasing dts to muxer") fire on a loaded machine when frames after a stall
        // come close together, though each decodes; the FLV's own timestamps are checked below.
        let decode = try ExternalTool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"], timeoutSeconds: 60)
        let decodingErrors = decode.errorOutput.split(separator: "\n").filter { !$0.hasPrefix("[null @") }
        #expect(decodingErrors.isEmpty, "decoding errors: \(decodingErrors.prefix(10))")
        let flv = try FLVInspection(path: file)
        #expect(flv.packets.first?.isKey == true)
        #expect(flv.timestampsIncrease)
        #expect(flv.durationSeconds(fps: Self.fps) > Double(seconds) - 3, "video went on through the congestion")
        // The encoder's schedule is in frames: with none requested, two keyframes are whole GOPs
        // (keyint × fps encoded frames) apart, so their codes differ by a multiple of a GOP plus the
        // frames dropped before the encoder between them (numbered, never encoded). A pair off that
        // grid holds a requested keyframe, whatever the machine's load or the link's timing.
        let codes = try FLVInspection.frameNumbers(of: file, width: Self.width, height: Self.height)
        #expect(codes.count == flv.packets.count && FLVInspection.inOrder(codes), "frame codes: \(codes.prefix(10))…")
        let gop = Int(Self.keyint * Self.fps)
        let lost = try #require(RunCounts(summary: log), "\(log.suffix(800))").droppedBeforeEncoder
        let keys = flv.packets.indices.filter { flv.packets[$0].isKey && $0 < codes.count }.compactMap { index in codes[index].map { (index, Int($0)) } }
        let pairs = zip(keys, keys.dropFirst()).map { from, to in
            (span: to.1 - from.1, lostBetween: min(lost, to.1 - from.1 - (to.0 - from.0)))
        }
        #expect(pairs.contains { $0.span < gop || $0.span % gop > $0.lostBetween },
                "a requested keyframe came before the schedule: code spans \(pairs.map(\.span)) (\(lost) frames dropped before the encoder)")
        try Self.expectAACAudio(file)
        let audio = try FFmpegCLI.packetTimes(file)
        let span = (audio.last ?? 0) - (audio.first ?? 0)
        #expect(span > Double(seconds) - 3, "audio span \(span) s")
        #expect(Double(audio.count) * 1024 / 48_000 >= span * 0.98, "\(audio.count) AAC frames over \(span) s: audio has gaps")
    }
}

extension LivepushStreamTests {
    /// `--adaptive-bitrate` with a 2 Mbit/s target on a 600 kbit/s link: the encoder's bitrate comes down
    /// (each decision logged), and once the throttle is lifted it climbs back, step by step.
    @Test func adaptiveBitrateFollowsTheLink() throws {
        let run = try ThrottledRun(seconds: 16, extra: ["--adaptive-bitrate"])
        defer { run.proxy.close() }
        #expect(LocalPort.waitUntil(15) { !run.nginx.recordings.isEmpty }, "never published")
        Thread.sleep(forTimeInterval: 6)
        run.proxy.lift()
        let log = try Self.finish(run.livepush, within: 70)
        // "adaptive bitrate bitrate=686 kbit/s queue=…": every decision, in order.
        let decisions = log.split(separator: "\n").filter { $0.contains("adaptive bitrate") }.compactMap { line -> Int? in
            guard let range = line.range(of: "bitrate=") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        let lowest = try #require(decisions.min(), "no bitrate decisions: \(log.suffix(1500))")
        #expect(lowest <= 1000, "the bitrate came down: \(decisions)")
        let recovery = decisions.drop { $0 != lowest }.dropFirst()
        #expect(recovery.count >= 3 && zip(recovery, recovery.dropFirst()).allSatisfy { $0 < $1 }, "raised step by step after the lift: \(decisions)")
        #expect((recovery.last ?? 0) * 10 >= lowest * 13, "climbed back: \(decisions)")
        // The decisions reached the shared encoder (the pipeline's summary, through its bitrate arbiter).
        #expect(LivepushEncoderBitrate.lowestKilobits(in: log) == lowest, "\(log.suffix(1500))")
    }
}
