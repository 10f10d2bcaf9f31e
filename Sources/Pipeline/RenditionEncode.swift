import Codec
import Logging
import MediaCore
import Output
import Synchronization

/// One rendition's encode inside a ``StreamPipeline``: its frame-rate thinning, its own
/// ``EncoderQueue`` (bounded, counting its drops, so a slow 1080p encode never stalls the 480p
/// one), its own fan-out to the outputs that take it, and its own bitrate arbiter and keyframe
/// requests. The encoder scales each captured frame to the rendition's size (libyuv, in
/// ``VideoEncoder``), through a ``SharedScaler`` when a sibling rendition has the same size (the
/// frame is scaled once for both); at capture size it encodes the captured buffer itself.
final class RenditionEncode: VideoSink {
    let index: Int
    let description: RenditionDescription
    let encoderName: String
    let rotation: VideoEncoderSettings.RotationHandling
    let fanout: EncodedVideoFanout
    let encoder: EncoderQueue
    let bitrate: BitrateArbiter
    /// Whether and how each captured frame enters the encoder's queue. Owned by the capture thread
    /// (the only caller of ``onFrame(_:)``); the lock is never contended. `keyFrames` (nil: the
    /// encoder's own GOP counter) marks keyframes by capture time; a mark on a frame thinned out is
    /// `keyFrameDue` for the next frame kept.
    private let admission: Mutex<(decimator: FrameRateDecimator, skipped: Int, keyFrames: KeyFrameSchedule?, keyFrameDue: Bool)>

    /// With `keyFramesByCaptureTime` the rendition's keyframes come from a ``KeyFrameSchedule`` at its
    /// keyframe interval, decided here for each captured frame before the encoder's queue, rather than
    /// from the encoder's own count of the frames it got (``VideoEncoderSettings/KeyFrameCadence/requested``).
    init(index: Int, rendition: StreamPipeline.Rendition, outputs: [any StreamOutput], keyFramesByCaptureTime: Bool,
         adaptation: CPUAdaptationSettings?, peers: CPUAdaptationPeers?, sharedScaler: SharedScaler?, logger: Logger) throws(CodecError) {
        self.index = index
        description = rendition.description
        var settings = rendition.settings
        if keyFramesByCaptureTime { settings.keyFrameCadence = .requested }
        settings.rotation = StreamPipeline.rotationHandling(for: outputs)
        rotation = settings.rotation
        encoderName = settings.encoderName
        fanout = EncodedVideoFanout(outputs: outputs, rendition: index)
        let name = rendition.description.name
        let encoder = try EncoderQueue(settings: settings, capacity: StreamPipeline.encoderQueueCapacity, sink: fanout, adaptation: adaptation,
                                       peers: peers.map { ($0, index) }, sharedScaler: sharedScaler,
                                       threadName: EncoderQueue.threadName(rendition: name),
                                       onRestart: { [logger, encoder = settings.encoderName] restarts in
            logger.warning("encoder wedged: no frame out for seconds while frames went in; reopened it with an IDR",
                           metadata: ["encoder": "\(encoder)", "rendition": "\(name)", "restarts": "\(restarts)"])
        }, onAdaptationStep: { [logger] step in logger.log(level: step.isDown ? .warning : .info, "\(step)", metadata: ["rendition": "\(name)"]) })
        self.encoder = encoder
        bitrate = BitrateArbiter(configuredBitsPerSecond: settings.bitrateBitsPerSecond) { encoder.setBitrate($0) }
        let keyFrames = keyFramesByCaptureTime
            ? KeyFrameSchedule(intervalSeconds: settings.keyframeIntervalSeconds, framesPerSecond: settings.framesPerSecond) : nil
        admission = Mutex((FrameRateDecimator(maximumFramesPerSecond: rendition.maximumFramesPerSecond), 0, keyFrames, false))
    }

    /// Marks the frame a keyframe if the schedule says so, keeps it if the rendition's rate allows,
    /// then queues it (or the queue drops and counts it; a keyframe it keeps: ``EncoderQueue/submit(_:keyFrame:)``).
    func onFrame(_ frame: VideoFrame) {
        let (keep, keyFrame) = admission.withLock { state in
            if state.keyFrames?.isKeyFrame(captureTimeNanos: frame.captureTimeNanos) == true { state.keyFrameDue = true }
            let keep = state.decimator.keeps(timestampNanos: frame.captureTimeNanos)
            guard keep else {
                state.skipped += 1
                return (false, false)
            }
            defer { state.keyFrameDue = false }
            return (true, state.keyFrameDue)
        }
        if keep { encoder.submit(frame, keyFrame: keyFrame) }
    }

    func waitUntilConsumed(deadlineNanos: Int64) { encoder.waitUntilEncoded(deadlineNanos: deadlineNanos) }

    /// Captured frames left out to bring the capture rate down to the rendition's.
    var framesThinned: Int { admission.withLock { $0.skipped } }

    var status: StreamPipeline.RenditionStatus {
        StreamPipeline.RenditionStatus(description: description, encoderName: encoderName, encoder: encoder.statistics,
                                       framesThinned: framesThinned, bitrate: bitrate.summary, outputs: fanout.outputs.map(\.name))
    }
}

extension RenditionEncode {
    /// One ``SharedScaler`` for each size that two or more of `renditions` have, at each of their
    /// indices (nil for a rendition whose size is its own: its encoder scales alone). A shared size
    /// that turns out to be the capture's costs nothing: no frame there needs scaling.
    static func sharedScalers(for renditions: [StreamPipeline.Rendition]) -> [SharedScaler?] {
        let sizes = renditions.map { [$0.settings.width, $0.settings.height] }
        var scalers: [[Int]: SharedScaler] = [:]
        for size in Set(sizes) {
            let sharers = sizes.filter { $0 == size }.count
            guard sharers > 1 else { continue }
            scalers[size] = SharedScaler(width: size[0], height: size[1], sharers: sharers,
                                         recentCapacity: StreamPipeline.encoderQueueCapacity + 1)
        }
        return sizes.map { scalers[$0] }
    }
}

/// Hands every captured frame to each rendition's encode: the same pooled buffer, no copy (each
/// rendition's encoder thread scales it, once per distinct size: ``SharedScaler``). Every encode sees
/// every captured frame from the same first one, so encodes with one keyframe interval mark the same
/// frames as keyframes (each runs its own ``KeyFrameSchedule``, one per captured frame).
struct RenditionSplitter: VideoSink {
    let encodes: [RenditionEncode]

    func onFrame(_ frame: VideoFrame) {
        for encode in encodes { encode.onFrame(frame) }
    }

    /// Every encode has the frame before any is waited for, so they still encode side by side.
    func waitUntilConsumed(deadlineNanos: Int64) {
        for encode in encodes { encode.waitUntilConsumed(deadlineNanos: deadlineNanos) }
    }
}
