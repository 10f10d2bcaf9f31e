import ArgumentParser
import Codec
import Foundation
import LibAV
import MediaCore

/// `livepush probe URL`: plays a stream back from a media server (RTMP play, or an SRT caller) and
/// prints the glass-to-glass latency every second, from the capture time livepush puts in each
/// frame's SEI (docs/capture-time.md) against this machine's wall clock. It measures the whole
/// path a viewer's player sees, the server included: nginx-rtmp, SRS, MediaMTX or a platform's own
/// playback. Packets are parsed, never decoded.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Play a stream back (rtmp://, rtmps://, srt://) and print its glass-to-glass latency every second.",
        discussion: "The stream must carry livepush's capture-time SEI: publish it with capture_time: sei (or --capture-time sei). Latency is this machine's clock minus each frame's capture time, so across machines it includes their clock offset."
    )
    static let noSEIMessage = "the stream carries no capture-time SEI: publish it with capture_time: sei"

    @Argument(help: "The stream to play: rtmp://server/app/key, rtmps://…, or srt://host:port (SRT caller).")
    var url: String

    @Option(help: "Stop after this long from the first timed frame (e.g. 20s); default: until the stream ends or Ctrl-C.")
    var duration: String?

    @Option(help: "Give up when no frame with a capture time arrives within this long (e.g. 10s).")
    var timeout: String = "10s"

    @Flag(help: "Print one JSON object per line instead of text.")
    var json = false

    func run() throws {
        let durationSeconds = try duration.map { try DurationParser.seconds(parsing: $0) }
        let timeoutSeconds = try DurationParser.seconds(parsing: timeout)
        FFmpegLogging.silent()
        let reader = try LiveStreamReader(url: url, timeoutSeconds: timeoutSeconds)
        guard let codec = VideoCodec(rawValue: reader.codecName), codec.usesNALUnits else {
            throw ProbeFailure(description: "\(url) carries \(reader.codecName) video: only H.264 and H.265 carry a capture-time SEI")
        }
        let framing = reader.extradata.withUnsafeBytes { NALUnitFraming(extradata: $0, codec: codec) }
        var sei = CaptureTimeSEIReader(codec: codec, framing: framing)
        var probe = LatencyProbe(expectedSeconds: durationSeconds ?? 60, started: MonotonicClock.nowNanos())
        let format = ProbeOutput(json: json)
        var ended = false
        var videoPackets = 0
        do {
            while !ended, try reader.nextVideoPacket({ packet in
                videoPackets += 1
                let now = MonotonicClock.nowNanos()
                if let elapsed = probe.elapsedSeconds(at: now) {
                    ended = elapsed >= durationSeconds ?? .infinity
                } else {
                    ended = Double(now - probe.started) / 1e9 > timeoutSeconds
                }
                guard !ended else { return }
                if let captured = sei.captureTime(inPacket: packet),
                   let second = probe.add(captureWallClock: captured.unixNanos, receivedWallClock: MonotonicClock.wallClockNowNanos(), receivedMonotonic: now) {
                    format.print(second: second.index, second.summary)
                }
            }) {}
        } catch {
            // A server ends a stream whose publisher left with a read error, not an end of file.
            guard videoPackets > 0 else { throw error }
            FileHandle.standardError.write(Data("livepush: the stream ended: \(error)\n".utf8))
        }
        if let last = probe.finish() { format.print(second: last.index, last.summary) }
        guard let total = probe.total() else { throw ProbeFailure(description: Self.noSEIMessage) }
        format.print(total: total)
    }
}

/// A failure the user can act on, printed as it is.
struct ProbeFailure: Error, CustomStringConvertible {
    var description: String
}

/// Text or JSON lines, flushed each time so a pipe sees every second as it ends.
struct ProbeOutput {
    var json: Bool

    func print(second: Int, _ summary: LatencySummary) {
        emit(json ? "{\"second\":\(second),\(fields(summary, p99: false))}"
                  : "\(second) s: \(summary.frames) frames, latency min \(ms(summary.minimumMilliseconds)) / median \(ms(summary.medianMilliseconds)) / max \(ms(summary.maximumMilliseconds)) ms")
    }

    func print(total summary: LatencySummary) {
        emit(json ? "{\"total\":true,\(fields(summary, p99: true))}"
                  : "total: \(summary.frames) frames, latency min \(ms(summary.minimumMilliseconds)) / median \(ms(summary.medianMilliseconds)) / p99 \(ms(summary.p99Milliseconds)) / max \(ms(summary.maximumMilliseconds)) ms")
    }

    private func fields(_ summary: LatencySummary, p99: Bool) -> String {
        "\"frames\":\(summary.frames),\"min_ms\":\(ms(summary.minimumMilliseconds)),\"median_ms\":\(ms(summary.medianMilliseconds)),"
            + (p99 ? "\"p99_ms\":\(ms(summary.p99Milliseconds))," : "") + "\"max_ms\":\(ms(summary.maximumMilliseconds))"
    }

    private func ms(_ value: Double) -> String { String(format: "%.1f", value) }

    private func emit(_ line: String) {
        Swift.print(line)
        fflush(nil)
    }
}
