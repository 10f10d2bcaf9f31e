import Capture
import Codec
import Config
import Output
import Pipeline

/// Turns what a running camera counts (the pipeline's status, each rendition's encoded totals, each
/// output's status) into the ``CameraReport`` the API, the dashboard and the metrics show, with
/// per-second rates from ``RateMeter``s it keeps between reads.
struct CameraStatusMapper: Sendable {
    /// One look at a running camera, taken by ``CameraRuntime/report()``.
    struct Sample {
        var config: CameraConfig
        var source: SourceSpec
        /// The negotiated capture format; nil before start.
        var format: CaptureFormat?
        var lastError: String?
        var targetBitrate: Int
        var pipeline: StreamPipeline.Status
        /// Each rendition's encoded totals, top first.
        var renditions: [EncodedStreamProbe.Totals]
        var outputs: [Output]
        var framesCaptured: Int
        var isShowingPlaceholder: Bool
        var onDemand: OnDemandController.Snapshot?
        var audio: AudioConfig?
        var nowNanos: Int64
    }

    /// One output as status shows it.
    struct Output {
        var id: String
        var kind: String
        var target: String
        var status: OutputStatus
        var uptimeSeconds: Double?
        var stateReason: String?
        var servesAllRenditions: Bool

        init(_ output: ControlledOutput) {
            self.init(id: output.id, kind: output.kind, target: output.target, status: output.status, uptimeSeconds: output.uptimeSeconds,
                      stateReason: output.stateReason, servesAllRenditions: output.servesAllRenditions)
        }

        init(id: String, kind: String, target: String, status: OutputStatus, uptimeSeconds: Double?, stateReason: String?, servesAllRenditions: Bool) {
            self.id = id
            self.kind = kind
            self.target = target
            self.status = status
            self.uptimeSeconds = uptimeSeconds
            self.stateReason = stateReason
            self.servesAllRenditions = servesAllRenditions
        }
    }

    /// When the camera started: every meter counts from there, so the first read shows the rate since.
    let startedNanos: Int64
    private var meters: [String: RateMeter] = [:]

    init(startedNanos: Int64) { self.startedNanos = startedNanos }

    /// Drops the meters of outputs replaced or removed (a new output under the same id counts afresh).
    mutating func forgetOutputs(_ ids: [String]) {
        for id in ids { meters = meters.filter { !$0.key.hasSuffix(".\(id)") } }
    }

    mutating func report(_ sample: Sample) -> CameraReport {
        let status = sample.pipeline
        let config = sample.config
        let totals = sample.renditions[0]
        let outputs = sample.outputs.map { outputReport($0, config: config, now: sample.nowNanos) }
        let renditions = renditionReports(sample, outputs: outputs)
        let queue = max(0, status.encoder.submitted - status.encoder.encoded - status.encoder.dropped)
        let size = sample.format?.size ?? config.size
        let idle = sample.onDemand?.isIdle == true
        let cameraState = sample.lastError != nil ? "failed" : idle ? "idle"
            : sample.isShowingPlaceholder ? "no-signal" : sample.format == nil ? "stopped" : "running"
        let now = sample.nowNanos
        return CameraReport(id: config.id, source: "\(sample.source)", state: cameraState, width: size.width, height: size.height,
                            encoder: config.encoder.resolvedName, encoderChoice: config.encoder.pick?.description, encoderRestarts: status.encoder.restarts,
                            captureFps: rate("capture", Double(sample.framesCaptured), now), encodedFps: rate("encoded", Double(totals.frames), now),
                            bitrateBitsPerSecond: rate("bits", Double(totals.bytes * 8), now), targetBitrateBitsPerSecond: sample.targetBitrate,
                            encoderBitrateBitsPerSecond: status.bitrate.bitsPerSecond,
                            lowestEncoderBitrateBitsPerSecond: status.bitrate.lowestBitsPerSecond, encoderBitrateChanges: status.bitrate.changes,
                            framesEncoded: totals.frames, keyFrames: totals.keyFrames,
                            droppedFrames: DroppedFrames(capture: status.captureDropped, encoder: status.encoder.dropped,
                                                         outputs: outputs.reduce(0) { $0 + $1.droppedFrames }),
                            queueDepth: queue, uptimeSeconds: Double(now - startedNanos) / 1e9,
                            lastError: sample.lastError ?? totals.lastError, outputs: outputs,
                            adaptation: status.encoder.adaptation.map(AdaptationReport.init),
                            stateReason: idle ? OnDemandPolicy.idleReason : nil,
                            onDemand: sample.onDemand.map { OnDemandReport(starts: $0.starts, stops: $0.stops) },
                            audio: status.audio.flatMap { status in sample.audio.map { AudioReport($0, status) } }, renditions: renditions)
    }

    private mutating func rate(_ key: String, _ value: Double, _ now: Int64) -> Double {
        meters[key, default: RateMeter(since: startedNanos)].update(value, now: now)
    }

    /// An output that serves every rendition names none; another names the one it takes.
    private mutating func outputReport(_ output: Output, config: CameraConfig, now: Int64) -> OutputReport {
        let status = output.status
        let renditionNames = config.effectiveRenditions.map(\.name)
        let rendition = output.servesAllRenditions ? nil
            : config.outputs.first { $0.id == output.id }.map { renditionNames[config.renditionIndex(of: $0)] } ?? renditionNames[0]
        return OutputReport(id: output.id, kind: output.kind, target: output.target, state: status.state.rawValue,
                            fps: rate("out.fps.\(output.id)", Double(status.framesSent), now),
                            bitrateBitsPerSecond: rate("out.bits.\(output.id)", Double(status.bytesSent * 8), now),
                            framesSent: status.framesSent, droppedFrames: status.framesDropped,
                            droppedFramesAtSocket: status.framesDroppedAtSocket,
                            framesHeldForKeyFrame: status.framesHeldForKeyFrame, bytesSent: status.bytesSent,
                            queueDepth: nil, reconnects: status.reconnects, rttMilliseconds: status.srt?.rttMilliseconds,
                            uptimeSeconds: output.uptimeSeconds, lastError: status.lastError,
                            health: status.health?.rawValue, delivery: status.delivery, srt: status.srt, rendition: rendition,
                            viewerLinks: status.viewerLinks, stateReason: output.stateReason ?? status.stateReason, files: status.recordingFiles,
                            reconnectRequest: status.reconnectRequest, ingest: status.ingest)
    }

    /// Each rendition's encode, top first; the top one's target is the camera's (set over the API).
    private mutating func renditionReports(_ sample: Sample, outputs: [OutputReport]) -> [RenditionReport] {
        let now = sample.nowNanos
        return zip(sample.pipeline.renditions, zip(sample.config.effectiveRenditions, sample.renditions)).enumerated().map { index, pair in
            let (encode, (rendition, totals)) = pair
            return RenditionReport(name: rendition.name, width: rendition.size.width, height: rendition.size.height, fps: rendition.framesPerSecond,
                                   encoder: rendition.encoder.resolvedName,
                                   targetBitrateBitsPerSecond: index == 0 ? sample.targetBitrate : encode.description.bitrateBitsPerSecond,
                                   encoderBitrateBitsPerSecond: encode.bitrate.bitsPerSecond, encoderBitrateChanges: encode.bitrate.changes,
                                   encodedFps: rate("rendition.fps.\(rendition.name)", Double(totals.frames), now),
                                   bitrateBitsPerSecond: rate("rendition.bits.\(rendition.name)", Double(totals.bytes * 8), now),
                                   framesEncoded: totals.frames, keyFrames: totals.keyFrames, droppedFrames: encode.encoder.dropped,
                                   framesThinned: encode.framesThinned,
                                   queueDepth: max(0, encode.encoder.submitted - encode.encoder.encoded - encode.encoder.dropped),
                                   outputs: outputs.filter { $0.rendition == nil || $0.rendition == rendition.name }.map(\.id),
                                   adaptation: encode.encoder.adaptation.map(AdaptationReport.init),
                                   framesAsCaptured: encode.encoder.preparation.asCaptured, framesScaled: encode.encoder.preparation.scaled,
                                   framesScaledBySibling: encode.encoder.preparation.scaledBySibling)
        }
    }
}

extension AdaptationReport {
    init(_ status: CPUAdaptation.Status) {
        self.init(rung: "\(status.rung)", width: status.rung.width, height: status.rung.height, framesPerSecond: status.rung.framesPerSecond,
                  rungIndex: status.rungIndex, rungCount: status.rungCount, stepsDown: status.stepsDown, stepsUp: status.stepsUp,
                  lastReason: status.lastReason, thinnedFrames: status.thinnedFrames)
    }
}

extension AudioReport {
    init(_ config: AudioConfig, _ status: AudioStatus) {
        self.init(device: config.device, state: status.state.rawValue, chunksCaptured: status.chunksCaptured,
                  framesEncoded: status.framesEncoded, clockSkewMillis: status.clockSkewMillis, clockDriftPPM: status.clockDriftPPM,
                  clockCorrectionPPM: status.clockCorrectionPPM, lastError: status.lastError)
    }
}
