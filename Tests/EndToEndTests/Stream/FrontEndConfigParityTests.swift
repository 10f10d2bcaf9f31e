import Config
import Testing
import TestSupport

/// One set of defaults for both front ends: every output kind, asked for with `stream`'s flags,
/// makes the same ``LivepushConfig`` as the YAML a `serve` user would write for it (only the keys
/// the flags name). `stream` prints its config (`--print-config`, no media, no sockets) and both
/// texts go through the same ``ConfigParser``; the whole value is compared, cameras and
/// defaults included. `FrontEndParityTests` then runs the behaviour end to end for a few of them.
@Suite struct FrontEndConfigParityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var flags: [String]
        /// The camera's own YAML keys besides `id` (one a line), and its outputs (one a line).
        var camera: [String] = []
        var outputs: [String]
        /// Top-level YAML keys (one a line), e.g. `listen:` for WHEP or `audio:`.
        var top: [String] = []
        var testDescription: String { name }

        var yaml: String {
            let cameraLines = camera.map { "    \($0)" } + ["    outputs:"] + outputs.map { "      \($0)" }
            return (top + ["cameras:", "  - id: cam0"] + cameraLines).joined(separator: "\n") + "\n"
        }
    }

    /// Secrets the flags read from the environment, and the YAML refers to by the same names.
    static let environment = ["LIVEPUSH_STREAM_KEY": "s3cr3t-key-0123", "LIVEPUSH_WHIP_TOKEN": "Wh1p-t0ken-abcdefghijkl"]

    static let cases: [Case] = [
        Case(name: "record", flags: ["--record", "/tmp/parity.mp4"], outputs: ["- record: {path: /tmp/parity.mp4}"]),
        Case(name: "record, segmented, with retention", flags: ["--record", "/tmp/parity.mp4", "--segment", "10m", "--retention", "7d"],
             outputs: ["- record: {path: /tmp/parity.mp4, segment: 10m, retention: 7d}"]),
        Case(name: "rtmp", flags: ["rtmp://127.0.0.1/live"], outputs: ["- rtmp: {url: rtmp://127.0.0.1/live, key: env:LIVEPUSH_STREAM_KEY}"]),
        Case(name: "rtmp, tuned", flags: ["--adaptive-bitrate", "--rtmp-timeout", "5s", "--send-queue", "3s", "--rtmp-stall-timeout", "8s",
                                          "--rtmp-in-use-retry", "20s", "--reconnect-delay", "2s", "--reconnect-attempts", "3", "rtmp://127.0.0.1/live"],
             outputs: ["- rtmp: {url: rtmp://127.0.0.1/live, key: env:LIVEPUSH_STREAM_KEY, adaptive_bitrate: true, timeout: 5s, send_queue: 3s,"
                       + " stall_timeout: 8s, in_use_retry: 20s, reconnect: {delay: 2s, attempts: 3}}"]),
        Case(name: "rtmp, backups", flags: ["rtmp://127.0.0.1/live", "--backup", "rtmp://127.0.0.2/live", "--backup", "rtmp://127.0.0.3/live/own"],
             outputs: ["- rtmp: {url: rtmp://127.0.0.1/live, key: env:LIVEPUSH_STREAM_KEY, backup: [rtmp://127.0.0.2/live, rtmp://127.0.0.3/live/own]}"]),
        Case(name: "rtmp, backups, both", flags: ["rtmp://127.0.0.1/live", "--backup", "rtmp://127.0.0.2/live", "--backup-mode", "both"],
             outputs: ["- rtmp: {url: rtmp://127.0.0.1/live, key: env:LIVEPUSH_STREAM_KEY, backup: [rtmp://127.0.0.2/live], backup_mode: both}"]),
        Case(name: "srt, backups, both", flags: ["srt://127.0.0.1:9000?latency=200", "--backup", "srt://127.0.0.2:9001", "--backup-mode", "both"],
             outputs: ["- srt: {url: 'srt://127.0.0.1:9000', latency: 200, backup: ['srt://127.0.0.2:9001'], backup_mode: both}"]),
        Case(name: "rtmp, tracks", flags: ["--rendition", "hd=640x360", "--rendition", "sd=320x180:300k", "--rtmp-tracks", "hd,sd", "rtmp://127.0.0.1/live"],
             camera: ["renditions: [{name: hd, size: 640x360}, {name: sd, size: 320x180, bitrate: 300k}]"],
             outputs: ["- rtmp: {url: rtmp://127.0.0.1/live, key: env:LIVEPUSH_STREAM_KEY, renditions: [hd, sd]}"]),
        Case(name: "rtmp, preset", flags: ["--rtmp-preset", "twitch"], outputs: ["- rtmp: {preset: twitch, key: env:LIVEPUSH_STREAM_KEY}"]),
        Case(name: "srt", flags: ["srt://127.0.0.1:9000?latency=200"], outputs: ["- srt: {url: 'srt://127.0.0.1:9000', latency: 200}"]),
        Case(name: "srt, tuned", flags: ["--rtmp-stall-timeout", "8s", "--rtmp-in-use-retry", "off", "srt://127.0.0.1:9000"],
             outputs: ["- srt: {url: 'srt://127.0.0.1:9000', stall_timeout: 8s, in_use_retry: off}"]),
        Case(name: "rtp", flags: ["--rtp", "rtp://127.0.0.1:5004"], outputs: ["- rtp: {destination: '127.0.0.1:5004'}"]),
        Case(name: "rtp, payload type", flags: ["--rtp", "rtp://127.0.0.1:5004?payload_type=100"],
             outputs: ["- rtp: {destination: '127.0.0.1:5004', payload_type: 100}"]),
        Case(name: "capture_time", flags: ["--capture-time", "none", "srt://127.0.0.1:9000", "--rtp", "rtp://127.0.0.1:5004", "--record", "/tmp/parity.mp4"],
             outputs: ["- record: {path: /tmp/parity.mp4}", "- rtp: {destination: '127.0.0.1:5004', capture_time: none}",
                       "- srt: {url: 'srt://127.0.0.1:9000', capture_time: none}"]),
        Case(name: "rtmp, capture_time", flags: ["--capture-time", "sei", "rtmp://127.0.0.1/live"],
             outputs: ["- rtmp: {url: rtmp://127.0.0.1/live, key: env:LIVEPUSH_STREAM_KEY, capture_time: sei}"]),
        Case(name: "whip", flags: ["--whip", "http://127.0.0.1:8889/whip/cam"],
             outputs: ["- whip: {url: 'http://127.0.0.1:8889/whip/cam', token: env:LIVEPUSH_WHIP_TOKEN}"]),
        Case(name: "whep", flags: ["--web", "127.0.0.1:8080"], outputs: ["- whep: {}"], top: ["listen: 127.0.0.1:8080"]),
        Case(name: "whep, adaptive", flags: ["--web", "127.0.0.1:8080", "--min-bitrate", "400k", "--max-viewers", "4"],
             outputs: ["- whep: {adaptive_bitrate: true, min_bitrate: 400k, max_viewers: 4}"], top: ["listen: 127.0.0.1:8080"]),
        Case(name: "start: false", flags: ["--record", "/tmp/parity.mp4", "--stopped", "record"],
             outputs: ["- record: {path: /tmp/parity.mp4, start: false}"]),
        Case(name: "on_demand", flags: ["--web", "127.0.0.1:8080", "--on-demand", "--on-demand-idle", "1m"],
             camera: ["on_demand: true", "on_demand_idle: 1m"], outputs: ["- whep: {}"], top: ["listen: 127.0.0.1:8080"]),
        Case(name: "audio channels", flags: ["--audio", "tone", "--audio-channels", "1", "--record", "/tmp/parity.mp4"],
             outputs: ["- record: {path: /tmp/parity.mp4}"], top: ["audio: {device: tone, channels: 1}"]),
    ]

    @Test(arguments: cases)
    func flagsAndYAMLMakeTheSameConfig(_ parity: Case) throws {
        let printed = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config"] + parity.flags, timeoutSeconds: 30,
                                           environment: Self.environment).output
        let fromFlags = try ConfigParser(file: "stream flags", environment: Self.environment).parse(printed)
        let fromYAML = try ConfigParser(file: "serve yaml", environment: Self.environment).parse(parity.yaml)
        #expect(fromFlags.cameras.first?.outputs == fromYAML.cameras.first?.outputs, "outputs\n\(printed)\n---\n\(parity.yaml)")
        #expect(fromFlags == fromYAML, "\(printed)\n---\n\(parity.yaml)")
    }

    /// A bad value of a flag that became a config key fails with the parser's message, naming the
    /// key, before anything starts: one validation path.
    @Test(arguments: [
        // refusedStream's --record output comes first, so the flag's output is outputs[1].
        (["--audio", "tone", "--audio-channels", "3"], "audio.channels"),
        (["--rtp", "rtp://127.0.0.1:5004?payload_type=200"], "cameras[0].outputs[1].rtp.payload_type: '200' must be a whole number from 96 to 127"),
        (["--rtmp-preset", "vimeo"], "cameras[0].outputs[1].rtmp.preset: 'vimeo' is not one of youtube, twitch"),
        (["--web", "127.0.0.1:8080", "--max-viewers", "100"], "cameras[0].outputs[1].whep.max_viewers: '100' must be a whole number from 1 to 64"),
        (["--rtp", "rtp://127.0.0.1:5004", "--capture-time", "yes"], "cameras[0].outputs[1].rtp.capture_time: 'yes' is not one of sei, none"),
        (["--retention", "soon"], "cameras[0].outputs[0].record.retention"),
        (["--on-demand-idle", "30s"], "on_demand_idle applies only with on_demand: true"),
        (["--rendition", "hd=640x360", "--rendition", "sd=320x180:300k", "--rtmp-tracks", "hd,xd", "rtmp://127.0.0.1/live/k"],
         "cameras[0].outputs[1].rtmp.renditions: no rendition 'xd' in this camera; it has hd, sd"),
        (["--rendition", "hd=640x360", "--rtmp-tracks", "hd", "rtmp://127.0.0.1/live/k"],
         "cameras[0].outputs[1].rtmp.renditions: list two or more of the camera's renditions"),
    ])
    func aBadNewFlagFailsWithTheParsersMessage(flags: [String], expected: String) throws {
        let (result, recorded) = try LivepushBinary.refusedStream(flags)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains(expected), "\(result.errorOutput)")
        #expect(!recorded)
    }

    /// Every output kind has at least one case above.
    @Test func everyOutputKindIsCovered() throws {
        let kinds = try Set(Self.cases.flatMap { try ConfigParser(file: "yaml", environment: Self.environment).parse($0.yaml).cameras[0].outputs.map(\.kind) })
        #expect(kinds == Set(OutputConfig.Kind.allCases))
    }
}
