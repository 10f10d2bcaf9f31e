import ArgumentParser
import Config
import Engine
import Foundation
import LibAV
import MediaCore
import Logging
import ProcessFootprint
import ServiceLifecycle
import Synchronization

/// `livepush stream`: the main job — one source, one encode, every output at once. Its flags
/// become a one-camera config (`--print-config` shows it as YAML for `livepush serve`), run by
/// the same engine as `serve`: the no-signal card, the watchdog and every output kind come from
/// the same code.
struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Encode a source once and push it to every output (recording, RTMP, RTP, WebRTC).")

    /// The one camera's id in the config the flags make.
    static let cameraID = "cam0"
    /// How far a file source that only records runs ahead of its clock (``CaptureConfig/fileRunAhead``):
    /// frames encoded back to back cost less CPU than one every 33 ms, x264's caches staying warm.
    /// Two seconds is the default keyframe interval, one recorded fragment: what GStreamer's MP4
    /// muxer holds and so encodes ahead (BENCHMARKS.md, "A file that only records runs ahead").
    static let fileRunAhead = Duration.seconds(2)

    @OptionGroup var sourceOptions: SourceOptions
    @OptionGroup var encoderOptions: EncoderOptions
    @OptionGroup var renditionOptions: RenditionOptions
    @OptionGroup var audioOptions: AudioOptions
    @OptionGroup var rtmpOptions: RTMPOptions
    @OptionGroup var rtpOptions: RTPOptions
    @OptionGroup var webRTCOptions: WebRTCOptions
    @OptionGroup var whipOptions: WHIPOptions

    @Option(help: "Stop after this much captured media, counted from the first frame: later frames are not sent (e.g. 10s, 5m); default: until Ctrl-C, SIGTERM or the end of a file source without ?loop.")
    var duration: String?

    @Option(help: "Record to this fragmented MP4 file (playable even after a crash; a new picture size continues in FILE-001.mp4, …); NAME=FILE records rendition NAME; repeat for several.")
    var record: [String] = []

    @Option(help: "With --record: start a new numbered file every so often (e.g. 10m), at a keyframe.")
    var segment: String?

    @Option(help: "With --record and --segment: delete finished files older than this (e.g. 7d, 12h); default: keep all.")
    var retention: String?

    @Option(help: "Leave the outputs of this kind (record, rtmp, srt, rtp, whip, whep) stopped when the camera starts (`start: false`), for `serve`'s API or dashboard to start (with --print-config); repeatable.")
    var stopped: [String] = []

    @Option(help: "How every RTMP, SRT and RTP output carries each frame's capture time: sei (an H.264/H.265 SEI holding the NTP capture time, docs/capture-time.md) or none (`capture_time`; default sei for SRT and RTP, none for RTMP).")
    var captureTime: String?

    @Flag(help: "Capture and encode only while someone watches (a --web viewer) or an output runs (`on_demand: true`); the camera rests otherwise.")
    var onDemand = false

    @Option(help: "With --on-demand: keep the camera running this long after the last viewer left (default \(Int(OnDemandConfig.defaultIdleSeconds))s).")
    var onDemandIdle: String?

    @Option(help: "Burn this text into the picture: strftime fields (%H:%M:%S), %L for milliseconds, {camera} (e.g. '%Y-%m-%d %H:%M:%S.%L').")
    var overlay: String?

    @Option(help: "With --overlay: top-left, top-right, bottom-left or bottom-right.")
    var overlayPosition: String?

    @Flag(help: "Print the config file that runs the same job under `livepush serve` (secrets as env:/file: references), and exit.")
    var printConfig = false

    func run() async throws {
        let logger = Logger(label: "livepush.stream")
        // First: loading the binary and its ~150 libraries left ~40 MiB of file pages resident,
        // and parsing the config (Yams, ICU's regex) would add to them before the encoder starts.
        ProcessFootprint.atStart(logger: logger)
        let draft = try configDraft()
        if printConfig {
            print((draft.notes.map { "# \($0)" } + [try draft.yaml()]).joined(separator: "\n"), terminator: "")
            return
        }
        let config = try parse(draft)
        let seconds = try duration.map { try DurationParser.seconds(parsing: $0) }
        FFmpegLogging.quiet()
        let factory = OutputFactory(whep: WHEPRegistry(udpHost: config.listen.host), logger: logger) { output, sdp in
            // Unbuffered: a reader of our stdout sees the SDP now, not at exit.
            let written = output.sdpFile.map { " (written to \($0))" } ?? ""
            FileHandle.standardOutput.write(Data("livepush: SDP for \(output.maskedTarget)\(written):\n\(sdp)".utf8))
        }
        // Sheds the clean file pages touched since the last release (issue 28): at the moments below.
        let shed: @Sendable () -> Void = { ProcessFootprint.release(logger: logger) }
        // With --web the player server serves /metrics: these, and the viewers' latency histogram.
        // Everything is open and nothing encoded yet: shed what opening touched (libavformat's ~35
        // libraries, x264's set-up, the muxers) before x264's first frames allocate its buffers
        // (14 MiB), rather than have both resident at once; then again once the first frame (an
        // IDR, each output's header) has been through, before the second (issue 28).
        let broadcaster = Broadcaster(config: config, factory: factory, metrics: webRTCOptions.web == nil ? nil : EngineMetrics(),
                                      beforeFirstFrames: shed, fileRunAhead: Self.fileRunAhead, logger: logger)
        // The run is over, by its length or the file's end: shed the steady state's file pages
        // before the stop faults in its teardown (the service group's shutdown, the muxers'
        // trailers, x264's close), so the two do not add up at the end. A signal's stop sheds them
        // as it begins (`onStopping`).
        let console = StreamConsole(broadcaster: broadcaster, camera: Self.cameraID, durationSeconds: seconds, onEnd: shed)
        let web = Mutex<Task<Void, Never>?>(nil)
        let service = BroadcastService(broadcaster: broadcaster, reloadConfig: nil, logger: logger, onStarted: { [webRTCOptions] in
            guard let runtime = try? await broadcaster.camera(Self.cameraID) else { return }
            let outputs = runtime.report().outputs.map(StreamReport.name(of:))
            print("livepush: streaming \(runtime.sourceName) (\(runtime.format.map { "\($0)" } ?? "?")) to \(outputs.joined(separator: ", "))")
            do {
                let task = try await webRTCOptions.serve(camera: Self.cameraID, broadcaster: broadcaster)
                web.withLock { $0 = task }
            } catch {
                logger.error("the web player could not start", metadata: ["error": "\(error)"])
            }
            console.start(runtime)
        }, onStopping: shed)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.endingTheGroup(service, named: "broadcast"), .endingTheGroup(console, named: "console")],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let trim = ProcessFootprint.keepReleasing(settle: .milliseconds(500), minimumInterval: .seconds(1), logger: logger)
        defer { trim.cancel() }
        try await group.run()
        web.withLock { $0 }?.cancel()
        console.printSummary()
    }

    /// The flags as a one-camera config, with the values of its secret references.
    func configDraft() throws -> ConfigDraft {
        var draft = ConfigDraft()
        var camera = ConfigDraft.Mapping()
        camera.set("id", Self.cameraID)
        try sourceOptions.describe(into: &camera)
        camera.set("encoder", encoderOptions.mapping)
        camera.set("adapt", try encoderOptions.adaptMapping())
        camera.set("renditions", list: try renditionOptions.mappings())
        if let overlay {
            var text = ConfigDraft.Mapping()
            text.set("text", overlay)
            text.set("position", overlayPosition)
            camera.set("overlay", text)
        } else if overlayPosition != nil {
            throw ValidationError("--overlay-position places a text: add --overlay TEXT")
        }
        var outputs: [ConfigDraft.Mapping] = []
        for record in record {
            let (rendition, path) = renditionOptions.split(record)
            var recording = ConfigDraft.Mapping()
            recording.set("path", path)
            recording.set("segment", segment)
            recording.set("retention", retention)
            outputs.append(ConfigDraft.Mapping.output("record", recording).taking(rendition: rendition))
        }
        if record.isEmpty, segment != nil || retention != nil {
            throw ValidationError("--segment and --retention split and prune a recording: add --record FILE")
        }
        var rtpOptions = rtpOptions
        let rtpTarget = rtpOptions.rtp.map(renditionOptions.split)
        rtpOptions.rtp = rtpTarget?.target
        if let rtp = try rtpOptions.output(into: &draft) { outputs.append(rtp.taking(rendition: rtpTarget?.rendition)) }
        var rtmpOptions = rtmpOptions
        let urlTargets = rtmpOptions.urls.map(renditionOptions.split)
        rtmpOptions.urls = urlTargets.map(\.target)
        let urlRenditions = (rtmpOptions.addsPresetOutput ? [nil] : []) + RTMPOptions.outputOrder(urlTargets, url: \.target).map(\.rendition)
        outputs += zip(try rtmpOptions.outputs(into: &draft), urlRenditions).map { $0.taking(rendition: $1) }
        var whipOptions = whipOptions
        whipOptions.whip = whipOptions.whip.map { renditionOptions.split($0).target }
        outputs += zip(try whipOptions.outputs(reconnect: rtmpOptions.reconnect, into: &draft), self.whipOptions.whip).map { $0.taking(rendition: renditionOptions.split($1).rendition) }
        if let whep = try webRTCOptions.output(adaptiveBitrate: rtmpOptions.adaptiveBitrate, into: &draft) { outputs.append(whep) }
        guard !outputs.isEmpty else { throw ValidationError("nothing to stream to: give an rtmp:// or srt:// URL, --rtp, --whip URL, --web ADDR:PORT or --record FILE") }
        camera.set("outputs", list: try Self.stopping(stopped, in: Self.carryingCaptureTime(captureTime, in: outputs)))
        camera.set("on_demand", onDemand ? "true" : nil)
        camera.set("on_demand_idle", onDemandIdle)
        if let address = try webRTCOptions.address() { draft.root.set("listen", address.description) }
        draft.root.set("audio", try audioOptions.mapping())
        draft.root.set("cameras", list: [camera])
        return draft
    }

    /// `outputs` with `capture_time` set on each kind that takes it (unchanged without `--capture-time`;
    /// the config parser checks the value).
    private static func carryingCaptureTime(_ mode: String?, in outputs: [ConfigDraft.Mapping]) -> [ConfigDraft.Mapping] {
        outputs.map { ["rtmp", "srt", "rtp"].contains($0.outputKind ?? "") ? $0.setting("capture_time", mode) : $0 }
    }

    /// `outputs` with `start: false` on each of the kinds `--stopped` names.
    private static func stopping(_ kinds: [String], in outputs: [ConfigDraft.Mapping]) throws -> [ConfigDraft.Mapping] {
        for kind in kinds where !outputs.contains(where: { $0.outputKind == kind }) {
            throw ValidationError("--stopped \(kind): no \(kind) output to leave stopped (the kinds: \(OutputConfig.Kind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return outputs.map { kinds.contains($0.outputKind ?? "") ? $0.setting("start", "false") : $0 }
    }

    /// Validated as `serve` validates a file; errors name the config key the flag became.
    private func parse(_ draft: ConfigDraft) throws -> LivepushConfig {
        let environment = ProcessInfo.processInfo.environment.merging(draft.environment) { $1 }
        do {
            return try ConfigParser(file: "livepush stream", environment: environment).parse(try draft.yaml())
        } catch let error as ConfigError {
            throw ValidationError(ConfigError(file: error.file, line: nil, key: error.key, message: error.message).description)
        }
    }
}
