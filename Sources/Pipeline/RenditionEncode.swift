import Codec
import Logging
import MediaCore
import Synchronization

/// One rendition's encode inside a ``StreamPipeline``: its frame-rate thinning, its own
/// ``EncoderQueue`` (bounded, counting its drops, so a slow 1080p encode never stalls the 480p
/// one), its own fan-out to the outputs that take it, and its own bitrate arbiter and keyframe
/// requests. The encoder scales each captured frame to the rendition's size (libyuv, in
/// ``VideoEncoder``); at capture size it encodes the captured buffer itself.
final class RenditionEncode: VideoSink {
    let index: Int
    let description: RenditionDescription
    let encoderName: String
    let rotation: VideoEncoderSettings.RotationHandling
    let fanout: EncodedVideoFanout
    let encoder: EncoderQueue
    let bitrate: BitrateArbiter
    /// Owned by the capture thread (the only caller of ``onFrame(_:)``); the lock is never contended.
    private let thinning: Mutex<(decimator: FrameRateDecimator, skipped: Int)>

    init(index: Int, rendition: StreamPipeline.Rendition, outputs: [any StreamOutput], adaptation: CPUAdaptationSettings?,
         peers: CPUAdaptationPeers?, logger: Logger) throws(CodecError) {
        self.index = index
        description = rendition.description
        var settings = rendition.settings
        settings.rotation = StreamPipeline.rotationHandling(for: outputs)
        rotation = settings.rotation
        encoderName = settings.encoderName
        fanout = EncodedVideoFanout(outputs: outputs, rendition: index)
        let name = rendition.description.name
        let encoder = try EncoderQueue(settings: settings, capacity: StreamPipeline.encoderQueueCapacity, sink: fanout, adaptation: adaptation,
                                       peers: peers.map { ($0, index) },
                                       onRestart: { [logger, encoder = settings.encoderName] restarts in
            logger.warning("encoder wedged: no frame out for seconds while frames went in; reopened it with an IDR",
                           metadata: ["encoder": "\(encoder)", "rendition": "\(name)", "restarts": "\(restarts)"])
        }, onAdaptationStep: { [logger] step in logger.log(level: step.isDown ? .warning : .info, "\(step)", metadata: ["rendition": "\(name)"]) })
        self.encoder = encoder
        bitrate = BitrateArbiter(configuredBitsPerSecond: settings.bitrateBitsPerSecond) { encoder.setBitrate($0) }
        thinning = Mutex((FrameRateDecimator(maximumFramesPerSecond: rendition.maximumFramesPerSecond), 0))
    }

    /// Keeps the frame if the rendition's rate allows, then queues it (or the queue drops and counts it).
    func onFrame(_ frame: VideoFrame) {
        let keep = thinning.withLock { state in
            let keep = state.decimator.keeps(timestampNanos: frame.captureTimeNanos)
            if !keep { state.skipped += 1 }
            return keep
        }
        if keep { encoder.submit(frame) }
    }

    /// Captured frames left out to bring the capture rate down to the rendition's.
    var framesThinned: Int { thinning.withLock { $0.skipped } }

    var status: StreamPipeline.RenditionStatus {
        StreamPipeline.RenditionStatus(description: description, encoderName: encoderName, encoder: encoder.statistics,
                                       framesThinned: framesThinned, bitrate: bitrate.summary, outputs: fanout.outputs.map(\.name))
    }
}

/// Hands every captured frame to each rendition's encode: the same pooled buffer, no copy (each
/// rendition scales its own way, on its own encoder thread).
struct RenditionSplitter: VideoSink {
    let encodes: [RenditionEncode]

    func onFrame(_ frame: VideoFrame) {
        for encode in encodes { encode.onFrame(frame) }
    }
}
