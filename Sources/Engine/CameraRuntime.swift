import Capture
import Codec
import Config
import Foundation
import LibAV
import Logging
import MediaCore
import Output
import Overlay
import Pipeline
import Synchronization

/// One served camera while it runs: its capturer, its single encode, and its outputs, with the
/// controls the API offers (switch source, bitrate, keyframe, start/stop an output, camera
/// controls, snapshot) and the numbers status and metrics report.
public final class CameraRuntime: Sendable {
    /// The microphone (or synthetic track) this camera's outputs carry, if any.
    public let audio: AudioConfig?
    let capturer: CameraCapturer
    let pipeline: StreamPipeline
    /// The top rendition's product (the camera's encoded fps, bitrate and latency metrics).
    var probe: EncodedStreamProbe { probes[0] }
    /// Each rendition's product, top first.
    let probes: [EncodedStreamProbe]
    /// The text burned into frames; its settings change live (API, reload).
    public let overlay: TextOverlay
    let factory: OutputFactory
    let logger: Logger
    private let mutable: Mutex<Mutable>

    private struct Mutable {
        /// What runs now: a reload may change the outputs and the bitrate in place.
        var config: CameraConfig
        var outputs: [ControlledOutput]
        var source: SourceSpec
        var targetBitrate: Int
        var format: CaptureFormat?
        /// Status as the API shows it, with the rate meters it keeps between reads.
        var status: CameraStatusMapper
        var lastError: String?
        /// The camera controls; a CSI camera's values (``RpicamControls``) are kept here, set over the
        /// API and applied by restarting rpicam-vid.
        var controls: CameraControls
        /// With `on_demand: true`, from start on: starts and stops capture as viewers and outputs come and go.
        var onDemand: OnDemandController?
        /// The last snapshot taken, shown to requests that may not wake an idle camera.
        var lastSnapshot: [UInt8]?
    }

    /// Builds the outputs (throwing for kinds this build lacks) and opens the encoder; nothing runs yet.
    /// `audio` is the microphone (or synthetic track) this camera's outputs carry, if any;
    /// `beforeFirstFrames` runs before the encoders get each of the first two captured frames (``StreamPipeline``);
    /// `fileRunAhead` applies when ``runsAhead(_:audio:)``.
    init(config: CameraConfig, audio: AudioConfig?, factory: OutputFactory, metrics: EngineMetrics?,
         beforeFirstFrames: (@Sendable () -> Void)? = nil, fileRunAhead: Duration = .zero, logger: Logger) throws {
        self.audio = audio
        self.factory = factory
        var logger = logger
        logger[metadataKey: "camera"] = "\(config.id)"
        self.logger = logger
        let outputs = config.outputs.map { factory.make($0, for: config) }
        let renditions = config.effectiveRenditions
        probes = renditions.indices.map { index in
            EncodedStreamProbe { [id = config.id] nanos in if index == 0 { metrics?.recordEncodeLatency(camera: id, nanos: nanos) } }
        }
        overlay = TextOverlay(camera: config.id, settings: config.overlay)
        var capture = config.captureConfig
        if Self.runsAhead(config, audio: audio) { capture.fileRunAhead = fileRunAhead }
        capturer = CameraCapturer(source: SourceFactory.make(config.source, stallTimeoutSeconds: config.stallTimeoutSeconds, controls: config.controls),
                                  config: capture, processor: overlay,
                                  poolCapacity: StreamPipeline.capturePoolCapacity(renditions: renditions.count),
                                  threadName: ThreadName(role: "cap", for: config.id))
        let encodes = try renditions.map { rendition in
            let settings = rendition.encoderSettings
            try settings.validate()
            return StreamPipeline.Rendition(description: rendition.description, settings: settings,
                                            maximumFramesPerSecond: rendition.framesPerSecond < config.framesPerSecond ? rendition.framesPerSecond : nil)
        }
        let routes = probes.enumerated().map { (output: $1 as any StreamOutput, rendition: $0) }
            + zip(config.outputs, outputs).map { (output: $1 as any StreamOutput, rendition: config.renditionIndex(of: $0)) }
        pipeline = try StreamPipeline(capturer: capturer, renditions: encodes, audioSource: try audio.map { try AudioSourceFactory.make(device: $0.device, format: AudioFormat(sampleRate: $0.sampleRate, channels: $0.channels)) },
                                      outputs: routes, adaptation: config.adapt, audioThreadName: ThreadName(role: "mic", for: config.id),
                                      audioClockCorrection: audio?.clockCorrection ?? true, beforeFirstFrames: beforeFirstFrames, logger: logger)
        mutable = Mutex(Mutable(config: config, outputs: outputs, source: config.source, targetBitrate: renditions[0].encoder.bitrateBitsPerSecond,
                                 status: CameraStatusMapper(startedNanos: MonotonicClock.nowNanos()), controls: CameraControls(rpicam: config.controls)))
    }

    /// Whether the camera's file may run ahead of its clock: its every output records, and it has
    /// no audio (captured live, on the clock) and no on-demand viewers, so nothing sees when a frame
    /// was encoded but the recordings' timestamps, which are the file's own either way.
    static func runsAhead(_ config: CameraConfig, audio: AudioConfig?) -> Bool {
        guard case .file = config.source, audio == nil, config.onDemand == nil, !config.outputs.isEmpty else { return false }
        return config.outputs.allSatisfy { $0.kind == .record }
    }

    /// The settings it runs with now.
    public var config: CameraConfig { mutable.withLock { $0.config } }
    /// The outputs, in config order.
    public var outputs: [ControlledOutput] { mutable.withLock { $0.outputs } }
    /// The capture format negotiated at start (nil before).
    public var format: CaptureFormat? { mutable.withLock { $0.format } }
    /// The source's name (device, file, test pattern).
    public var sourceName: String { capturer.name }

    func start() async throws {
        do {
            let format = try await pipeline.start()
            mutable.withLock { $0.format = format }
            if let onDemand = config.onDemand { beginOnDemand(onDemand) }
            logger.info("camera started", metadata: ["format": "\(format)", "encoder": "\(config.encoder.pick?.description ?? config.encoder.name)",
                                                     "outputs": "\(outputs.map { "\($0.id)→\($0.target)" }.joined(separator: ", "))"])
        } catch {
            mutable.withLock { $0.lastError = "\(error)" }
            throw EngineError.cameraFailed(camera: config.id, reason: "\(error)")
        }
    }

    /// What a reload changed in a running camera's outputs, by output id.
    public struct OutputChanges: Sendable, Equatable {
        /// Same settings: never stopped (an RTMP output stays on its connection).
        public var kept: [String] = []
        /// New settings under an existing id: the old one stopped, the new one started.
        public var replaced: [String] = []
        public var added: [String] = []
        public var removed: [String] = []
        /// Outputs that failed to start, with the reason; the next reload tries them again.
        public var failed: [String: String] = [:]

        public init(kept: [String] = [], replaced: [String] = [], added: [String] = [], removed: [String] = [], failed: [String: String] = [:]) {
            self.kept = kept
            self.replaced = replaced
            self.added = added
            self.removed = removed
            self.failed = failed
        }
    }

    /// Applies `new` without stopping the camera when only its outputs or its bitrate (without
    /// `renditions:`) differ, so a reload that adds a recording does not cut the live stream: it
    /// carries out ``CameraReconciler``'s actions. Unchanged outputs keep running, changed ones are
    /// replaced, new ones join at a keyframe asked for at once, removed ones stop (recordings
    /// finalized). Returns nil, having changed nothing, when the reconciler restarts the camera or a
    /// new output wants an audio codec the running camera does not encode: restart it then.
    func applyInPlace(_ new: CameraConfig) async -> OutputChanges? {
        let (current, running) = mutable.withLock { ($0.config, $0.outputs) }
        let actions = CameraReconciler.actions(from: current, to: new)
        // Every output to start is built first: one the running camera cannot carry restarts it, with nothing changed yet.
        var started: [String: ControlledOutput] = [:]
        var stopping: Set<String> = []
        for action in actions {
            switch action {
            case .restartCamera: return nil
            case let .startOutput(output), let .replaceOutput(output):
                let made = factory.make(output, for: new)
                guard pipeline.canAttach(made) else { return nil }
                started[output.id] = made
            case let .stopOutput(id): stopping.insert(id)
            case .keepOutput, .setBitrate, .updateOverlay: break
            }
        }
        var changes = OutputChanges()
        for output in running where started[output.id] != nil || stopping.contains(output.id) {
            await pipeline.detach(output)
            if stopping.contains(output.id) { changes.removed.append(output.id) }
        }
        var applied = new
        var outputs: [ControlledOutput] = []
        for action in actions {
            switch action {
            case let .keepOutput(id):
                outputs += running.filter { $0.id == id }
                changes.kept.append(id)
            case let .startOutput(output), let .replaceOutput(output):
                guard let made = started[output.id] else { continue }
                do {
                    try await pipeline.attach(made, rendition: new.renditionIndex(of: output))
                    outputs.append(made)
                    if case .startOutput = action { changes.added.append(output.id) } else { changes.replaced.append(output.id) }
                } catch {
                    changes.failed[output.id] = "\(error)"
                    applied.outputs.removeAll { $0.id == output.id }
                }
            case let .setBitrate(bitsPerSecond): setBitrate(bitsPerSecond)
            // The parser checked the font, so this only fails if the file vanished since.
            case let .updateOverlay(settings): try? overlay.update(settings)
            case .restartCamera, .stopOutput: break
            }
        }
        mutable.withLock { state in
            state.config = applied
            state.outputs = outputs
            state.status.forgetOutputs(changes.replaced + changes.removed)
        }
        logger.info("outputs reloaded in place", metadata: ["kept": "\(changes.kept)", "replaced": "\(changes.replaced)", "added": "\(changes.added)",
                                                           "removed": "\(changes.removed)", "failed": "\(changes.failed)"])
        return changes
    }

    /// Stops capture, flushes the encoder and stops every output (recordings are finalized).
    func stop() async {
        await onDemandController?.end()
        await pipeline.stop()
        logger.info("camera stopped")
    }

    public func output(_ id: String) throws(EngineError) -> ControlledOutput {
        guard let output = outputs.first(where: { $0.id == id }) else { throw .unknownOutput(camera: config.id, output: id) }
        return output
    }

    public func startOutput(_ id: String) async throws {
        let output = try output(id)
        try await output.resume()
        pipeline.requestKeyFrame()
        logger.info("output started", metadata: ["output": "\(id)"])
    }

    public func stopOutput(_ id: String) async throws {
        try await output(id).stopThroughAPI()
        logger.info("output stopped", metadata: ["output": "\(id)"])
    }

    public func setBitrate(_ bitsPerSecond: Int) {
        pipeline.setBitrate(bitsPerSecond)
        mutable.withLock { $0.targetBitrate = bitsPerSecond }
        logger.info("bitrate changed", metadata: ["bitrate": "\(bitsPerSecond)"])
    }

    public func requestKeyFrame() { pipeline.requestKeyFrame() }

    /// Ends the media `seconds` of capture time after the first frame (`stream --duration`).
    public func endMedia(afterSeconds seconds: Double) { pipeline.endMedia(afterSeconds: seconds) }

    /// A frame past that length has arrived: the run can stop.
    public var mediaEnded: Bool { pipeline.mediaEnded }

    /// Replaces the overlay from the next frame on (nil removes it), as the API does; a reload puts
    /// the config file's overlay back.
    public func setOverlay(_ settings: OverlaySettings?) throws(OverlayError) {
        try overlay.update(settings)
        mutable.withLock { $0.config.overlay = settings }
    }

    public func switchSource(to spec: SourceSpec) {
        let controls = spec.isRpicam ? mutable.withLock { $0.controls.rpicam } : config.controls
        capturer.switchSource(to: SourceFactory.make(spec, stallTimeoutSeconds: config.stallTimeoutSeconds, controls: controls))
        mutable.withLock { $0.source = spec }
        logger.info("switching source", metadata: ["source": "\(spec)"])
    }

    /// The controls of the source it shows now (``CameraControls``); a conflict when that source has none.
    public func controls() throws -> [V4L2Control] {
        let (source, controls) = mutable.withLock { ($0.source, $0.controls) }
        guard let list = try controls.list(for: source) else { throw noControls(source) }
        return list
    }

    public func setControl(_ name: String, to value: String) throws -> V4L2Control {
        let (source, controls) = mutable.withLock { ($0.source, $0.controls) }
        if case let .rpicam(index) = source { return try setRpicamControl(name, to: value, camera: index) }
        // A V4L2 camera's control is set on the device: nothing is kept here.
        var device = controls
        guard let control = try device.set(name, to: value, for: source) else { throw noControls(source) }
        logger.info("control set", metadata: ["control": "\(control.key)", "value": "\(value)"])
        return control
    }

    private func noControls(_ source: SourceSpec) -> EngineError {
        .conflict("camera '\(config.id)' is showing \(source), which has no controls; switch to a /dev/video camera first")
    }

    /// rpicam-vid takes controls only at start: the new value restarts it (a source switch, so the
    /// outputs stay connected while it comes back).
    private func setRpicamControl(_ name: String, to value: String, camera index: Int) throws -> V4L2Control {
        let (control, controls) = try mutable.withLock { state throws(CaptureError) in
            (try state.controls.set(name, to: value, for: .rpicam(index: index)), state.controls.rpicam)
        }
        capturer.switchSource(to: RpicamSource(cameraIndex: index, stallTimeoutSeconds: config.stallTimeoutSeconds, controls: controls))
        guard let control else { throw EngineError.badRequest("unknown control \(name)") }
        logger.info("control set, restarting rpicam-vid", metadata: ["control": "\(control.key)", "value": "\(controls[control.key] ?? value)"])
        return control
    }

    /// The next captured frame as JPEG. An idle on-demand camera starts for it when `mayWake`;
    /// otherwise it gets the last snapshot taken, or a grey card of the camera's size, at once
    /// (``idleSnapshotJPEG()``): a request another site's page made (`<img>` on a page the operator
    /// visits) must not keep a Pi's camera and encoder busy.
    public func snapshotJPEG(timeoutSeconds: Double = 3, mayWake: Bool = true) async throws -> [UInt8] {
        if !mayWake, let onDemand = onDemandController, onDemand.snapshot.isIdle { return try idleSnapshotJPEG() }
        onDemandController?.hold(seconds: timeoutSeconds)  // an idle on-demand camera starts for it
        guard let frame = await capturer.nextFrame(timeoutSeconds: timeoutSeconds) else {
            throw EngineError.noFrame(camera: config.id, seconds: timeoutSeconds)
        }
        let jpeg = try ImageFileWriter.encode(frame.buffer, as: .jpeg)
        mutable.withLock { $0.lastSnapshot = jpeg }
        return jpeg
    }

    /// What a snapshot that may not wake the camera shows: the last one taken, else a grey card.
    func idleSnapshotJPEG() throws -> [UInt8] {
        if let last = mutable.withLock({ $0.lastSnapshot }) { return last }
        let size = config.size
        let card = try I420Buffer(width: size.width, height: size.height)
        card.fill(y: 128, u: 128, v: 128)
        return try ImageFileWriter.encode(card, as: .jpeg)
    }

    var onDemandController: OnDemandController? { mutable.withLock { $0.onDemand } }
    func setOnDemandController(_ controller: OnDemandController) { mutable.withLock { $0.onDemand = controller } }

    /// Frames the encoder produced so far (the watchdog checks it grows).
    public var framesEncoded: Int { probe.snapshot.frames }

    public func report() -> CameraReport {
        let pipelineStatus = pipeline.status
        let totals = probes.map(\.snapshot)
        let captured = capturer.framesCaptured
        let placeholder = capturer.isShowingPlaceholder
        let onDemand = onDemandController?.snapshot
        let now = MonotonicClock.nowNanos()
        return mutable.withLock { state in
            let sample = CameraStatusMapper.Sample(config: state.config, source: state.source, format: state.format, lastError: state.lastError,
                                                   targetBitrate: state.targetBitrate, pipeline: pipelineStatus, renditions: totals,
                                                   outputs: state.outputs.map(CameraStatusMapper.Output.init), framesCaptured: captured,
                                                   isShowingPlaceholder: placeholder, onDemand: onDemand, audio: audio, nowNanos: now)
            return state.status.report(sample)
        }
    }
}
