import Foundation
import Testing
import TestSupport

/// `livepush stream` and `livepush serve` run one engine, so what one front end has the other has
/// too: each test runs the real binary both ways and checks the same behaviour.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FrontEndParityTests {
    enum FrontEnd: String, CaseIterable, Sendable {
        case stream, serve

        /// Shell lines that start livepush in the background as `$LP` (logs in livepush.log) with one
        /// camera: `camera` holds its YAML keys, `flags` the same settings for `stream`, `outputs` the
        /// YAML output list, `streamOutputs` the matching flags.
        func start(camera: String, flags: [String], outputs: String, streamOutputs: [String]) throws -> String {
            let binary = try LivepushBinary.path()
            switch self {
            case .stream:
                let arguments = (["stream"] + flags + streamOutputs).map { "'\($0)'" }.joined(separator: " ")
                return "'\(binary)' \(arguments) > livepush.log 2>&1 &\nLP=$!"
            case .serve:
                return """
                cat > livepush.yaml <<'YAML'
                listen: 127.0.0.1:8080
                cameras:
                  - id: cam0
                \(camera.split(separator: "\n").map { "    \($0)" }.joined(separator: "\n"))
                    outputs:
                \(outputs.split(separator: "\n").map { "      \($0)" }.joined(separator: "\n"))
                YAML
                '\(binary)' serve --config livepush.yaml > livepush.log 2>&1 &
                LP=$!
                """
            }
        }

        /// The WHEP endpoint a viewer posts its offer to.
        var whepURL: String { self == .stream ? "http://127.0.0.1:8080/whep" : "http://127.0.0.1:8080/whep/cam0" }
        /// What the front end prints once it serves.
        var readyLine: String { self == .stream ? "watch at" : "dashboard at" }
    }

    static let rotatedCamera = "source: testpattern\nsize: 640x360\nfps: 30\nrotation: 90\nencoder: {keyint: 1s, bitrate: 1M, preset: ultrafast}"
    static let rotatedFlags = ["--source", "testpattern", "--size", "640x360", "--fps", "30", "--rotation", "90",
                               "--keyint", "1", "--bitrate", "1M", "--preset", "ultrafast", "--duration", "60s"]

    /// A viewer that names the video orientation extension gets the rotation as metadata: pictures
    /// arrive as captured (landscape). One that does not gets turned pixels (portrait), frame codes
    /// readable after turning back. Before one engine, `serve` always turned the pixels.
    @Test(arguments: FrontEnd.allCases, [true, false])
    func rotationTravelsAsMetadataToViewersThatSignalIt(frontEnd: FrontEnd, cvo: Bool) throws {
        let start = try frontEnd.start(camera: Self.rotatedCamera, flags: Self.rotatedFlags, outputs: "- whep: {}",
                                       streamOutputs: ["--web", "127.0.0.1:8080"])
        let peerArguments = "\(cvo ? "--cvo" : "--turned 90") \(frontEnd.whepURL) 60 30"
        let namespace = try LoopbackNamespace.run(script: """
            set -u
            \(start)
            for i in $(seq 1 150); do grep -q "\(frontEnd.readyLine)" livepush.log && break; sleep 0.1; done
            timeout -k 5 40 '\(try PythonPeers.python())' '\(PythonPeers.scripts)/aiortc_whep_media.py' \(peerArguments) > client.json 2> client.err
            kill -INT $LP 2>/dev/null; kill -TERM $LP 2>/dev/null; wait $LP
            """, timeoutSeconds: 90)
        let log = namespace.contents(of: "livepush.log")
        let result = try #require(PythonPeers.result(namespace.contents(of: "client.json")),
                                  "no JSON from the viewer: \(namespace.contents(of: "client.err").suffix(1500))\n\(log.suffix(1500))")
        #expect(result["postStatus"] as? Int == 201, "\(result)\n\(log.suffix(1500))")
        #expect(result["answerHasCVO"] as? Bool == cvo, "\(result)")
        #expect(result["frames"] as? Int == 60, "\(result)")
        #expect(result["sizes"] as? [String] == [cvo ? "640x360" : "360x640"], "\(result)")
        #expect((result["codes"] as? Int ?? 0) >= 50, "frame codes read back: \(result)")
        #expect(result["inOrder"] as? Bool == true, "\(result)")
    }

    /// A camera that is not there at start: both front ends stream the "no signal" card instead of
    /// failing, and the recording holds it (the band under the top quarter is the card's red).
    @Test(arguments: FrontEnd.allCases)
    func aMissingCameraStreamsTheNoSignalCard(frontEnd: FrontEnd) throws {
        let directory = try TemporaryDirectory()
        let recording = directory.file("card.mp4")
        let camera = "source: /dev/video63\nsize: 320x240\nfps: 15\nencoder: {keyint: 1s, bitrate: 300k, preset: ultrafast}"
        let flags = ["--source", "/dev/video63", "--size", "320x240", "--fps", "15", "--keyint", "1", "--bitrate", "300k",
                     "--preset", "ultrafast", "--duration", "5s"]
        let script = try frontEnd.start(camera: camera, flags: flags, outputs: "- record: {path: \(recording)}", streamOutputs: ["--record", recording])
        let run = try LoopbackNamespace.run(script: """
            set -u
            \(script)
            sleep 5
            kill -INT $LP 2>/dev/null; wait $LP; echo "exit $?" > status
            """, timeoutSeconds: 60)
        let log = run.contents(of: "livepush.log")
        #expect(run.contents(of: "status").contains("exit 0"), "\(log.suffix(1500))")
        #expect(log.contains("no signal, showing the placeholder card"), "\(log.suffix(1500))")
        let frame = try FFmpegCLI.firstFrameI420(of: recording)
        try #require(frame.count == 320 * 240 * 3 / 2, "one 320x240 picture")
        let vPlane = frame[(320 * 240 + 160 * 120)...]
        // Chroma row 45 (luma row 90: inside the band from 60 to 120), left edge clear of the text.
        let v = Int(vPlane[vPlane.startIndex + 45 * 160 + 2])
        #expect(v > 200, "the card's red band (V = 240), got V = \(v)")
        let background = Int(vPlane[vPlane.startIndex + 10 * 160 + 2])
        #expect(abs(background - 128) < 16, "the card's grey background (V = 128), got V = \(background)")
    }

    /// Both front ends tell systemd READY=1 and pet the watchdog while frames are encoded.
    @Test(arguments: FrontEnd.allCases)
    func bothPetTheSystemdWatchdog(frontEnd: FrontEnd) throws {
        let directory = try TemporaryDirectory()
        let listener = try NotifySocketListener(path: directory.file("notify.sock"))
        let arguments: [String]
        switch frontEnd {
        case .stream:
            arguments = ["stream", "--size", "320x240", "--fps", "15", "--preset", "ultrafast", "--duration", "20s",
                         "--record", directory.file("out.mp4")]
        case .serve:
            try ServeConfigFile.write(directory.file("livepush.yaml"), camera: "size: 320x240\nfps: 15\nencoder: {preset: ultrafast}")
            arguments = ["serve", "--config", directory.file("livepush.yaml")]
        }
        let process = try BackgroundProcess(try LivepushBinary.path(), arguments,
                                            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1000000"])
        let messages = listener.messages(until: "WATCHDOG=1", seconds: 20)
        #expect(messages.contains { $0.hasPrefix("READY=1") }, "got \(messages); stderr: \(process.errorOutput.suffix(1500))")
        #expect(messages.contains("WATCHDOG=1"), "got \(messages)")
        process.kill(signal: SIGTERM)
        #expect(listener.messages(until: "STOPPING=1", seconds: 10).contains("STOPPING=1"))
        #expect(process.wait(timeoutSeconds: 15) == 0, "exit after SIGTERM; stderr: \(process.errorOutput.suffix(1500))")
    }
}

/// `stream`'s flags are a config: `--print-config` shows the YAML `serve` would run, secrets as
/// references only, and a bad flag fails with the same message a bad config line gets.
@Suite struct StreamConfigTests {
    @Test func printConfigIsAServeConfigWithoutTheSecrets() throws {
        let directory = try TemporaryDirectory()
        let printed = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--print-config", "--size", "640x360", "--rotation", "90", "--audio", "tone", "--record", directory.file("a.mp4"),
            "--segment", "10m", "--rtp", "rtp://127.0.0.1:5004", "--srtp-key", "generate", "--web", "127.0.0.1:8080", "--min-bitrate", "400k",
            "--key", "s3cr3t-key", "--reconnect-attempts", "3", "rtmp://127.0.0.1/live",
        ], timeoutSeconds: 30).output
        #expect(!printed.contains("s3cr3t-key"), "\(printed)")
        #expect(printed.contains("key: env:LIVEPUSH_STREAM_KEY"), "\(printed)")
        let file = directory.file("livepush.yaml")
        try printed.write(toFile: file, atomically: true, encoding: .utf8)
        let checked = try ExternalTool.run(try LivepushBinary.path(), ["check-config", file], timeoutSeconds: 30,
                                           environment: ["LIVEPUSH_STREAM_KEY": "s3cr3t-key"]).output
        #expect(checked.contains("camera cam0: testpattern 640x360"), "\(checked)")
        for line in ["record: record →", "rtp: rtp → srtp://127.0.0.1:5004", "rtmp: rtmp → rtmp://127.0.0.1/live/***", "whep: whep →"] {
            #expect(checked.contains(line), "\(line) in \(checked)")
        }
        #expect(!checked.contains("s3cr3t-key"), "\(checked)")
    }

    /// `--backup` attaches to the one RTMP URL; with several it cannot say whose backup it is.
    @Test func aBackupNeedsExactlyOneRTMPURL() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config", "--key", "k", "--backup", "rtmp://127.0.0.3/live",
                                                                      "rtmp://127.0.0.1/live", "rtmp://127.0.0.2/live"], check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("--backup belongs to one RTMP URL"), "\(result.errorOutput)")
    }

    /// `--backup-mode` says what the `--backup` ingests are for: without one it has nothing to say;
    /// an srt:// backup needs exactly one SRT URL and takes its settings (no query of its own).
    @Test func aBackupModeNeedsABackupAndAnSRTBackupOneSRTURL() throws {
        let cases: [(flags: [String], message: String)] = [
            (["--backup-mode", "both", "rtmp://127.0.0.1/live"], "--backup-mode says what the --backup ingests are for"),
            (["--backup", "srt://127.0.0.3:9000", "srt://127.0.0.1:9000", "srt://127.0.0.2:9000"], "an srt:// --backup belongs to one SRT URL"),
            (["--backup", "srt://127.0.0.3:9000?passphrase=0123456789", "srt://127.0.0.1:9000"], "an srt:// --backup is HOST:PORT"),
            (["--backup", "rtmp://127.0.0.3/live", "--backup-mode", "mirror", "rtmp://127.0.0.1/live"], "--backup-mode 'mirror' is not one of failover, both"),
        ]
        for (flags, message) in cases {
            let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config", "--key", "k"] + flags, check: false)
            #expect(result.status != 0 && result.errorOutput.contains(message), "\(flags): \(result.errorOutput)")
        }
    }

    /// `--rtmp-tracks` prints as `renditions:` on the rtmp output, and `check-config` names the tracks.
    @Test func tracksPrintAsRenditionsAndCheckConfigNamesThem() throws {
        let directory = try TemporaryDirectory()
        let printed = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config", "--rendition", "hd=640x360", "--rendition", "sd=320x180:300k",
                                                                       "--rtmp-tracks", "hd,sd", "--key", "k", "rtmp://127.0.0.1/live"], timeoutSeconds: 30).output
        let file = directory.file("livepush.yaml")
        try printed.write(toFile: file, atomically: true, encoding: .utf8)
        let checked = try ExternalTool.run(try LivepushBinary.path(), ["check-config", file], timeoutSeconds: 30,
                                           environment: ["LIVEPUSH_STREAM_KEY": "k"]).output
        #expect(checked.contains("rtmp: rtmp → rtmp://127.0.0.1/live/*** (tracks hd, sd, multitrack)"), "\(checked)")
    }

    /// `--rtmp-tracks` sends renditions over RTMP: without an RTMP URL it has nowhere to go.
    @Test func tracksNeedAnRTMPURL() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config", "--rendition", "hd=640x360", "--rendition", "sd=320x180:300k",
                                                                      "--rtmp-tracks", "hd,sd", "--record", "/tmp/never.mp4"], check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("--rtmp-tracks sends renditions as tracks of an RTMP connection: give an rtmp:// URL"), "\(result.errorOutput)")
    }

    @Test func aBadFlagNamesTheConfigKey() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--fps", "500", "--record", "/tmp/never.mp4"], check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("cameras[0].fps"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.mp4"))
    }
}

/// A one-camera serve config on a free loopback port, with no outputs of its own.
enum ServeConfigFile {
    static func write(_ path: String, camera: String) throws {
        let yaml = "listen: 127.0.0.1:0\ncameras:\n  - id: cam0\n" + camera.split(separator: "\n").map { "    \($0)" }.joined(separator: "\n") + "\n"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
