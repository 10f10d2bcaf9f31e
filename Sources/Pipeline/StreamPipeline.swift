import Capture
import Codec
import Logging
import MediaCore

/// capture → encoder → outputs: one source, one encode, fanned out to every destination.
///
/// Each stage runs on its own thread behind a bounded queue that drops rather than waits:
/// the capturer's buffer pool, the ``EncoderQueue``, and each output's own queue.
public final class StreamPipeline: Sendable {
    public struct Status: Sendable {
        public var captureDropped: Int
        public var encoder: EncoderQueue.Statistics
        public var audioFramesEncoded: Int
        public var bitrate: BitrateArbiter.Summary
        public var outputs: [(name: String, status: OutputStatus)]
    }

    public let capturer: any VideoCapturer
    public let outputs: [any StreamOutput]
    private let encoder: EncoderQueue
    /// The encoder's bitrate: the configured one, capped by what adapting outputs ask for.
    public let bitrate: BitrateArbiter
    private let rotation: VideoEncoderSettings.RotationHandling
    private let audio: AudioPipeline?
    private let logger: Logger

    /// Opens the encoders now, so bad settings fail before anything connects. With an audio
    /// source, each output that carries audio gets it in its codec (see ``StreamOutput/audioCodec``).
    /// Rotation: the encoder passes the capture's rotation through as metadata only when every
    /// output can signal it (``StreamOutput/carriesRotationMetadata``), else it turns the pixels; an
    /// output may switch it to turning them later (``StreamOutput/prepareRotationFallback(rotatePixels:)``).
    public init(capturer: any VideoCapturer, encoderSettings: VideoEncoderSettings, audioSource: (any AudioSource)? = nil,
                outputs: [any StreamOutput], logger: Logger = Logger(label: "livepush.pipeline")) throws(CodecError) {
        self.capturer = capturer
        self.outputs = outputs
        self.logger = logger
        audio = try audioSource.map { (source) throws(CodecError) in try AudioPipeline(source: source, outputs: outputs, logger: logger) }
        var settings = encoderSettings
        settings.rotation = Self.rotationHandling(for: outputs)
        rotation = settings.rotation
        let encoder = try EncoderQueue(settings: settings, sink: EncodedVideoFanout(outputs: outputs))
        self.encoder = encoder
        bitrate = BitrateArbiter(configuredBitsPerSecond: settings.bitrateBitsPerSecond) { encoder.setBitrate($0) }
    }

    /// Starts the outputs, then the source; returns the negotiated capture format.
    public func start() async throws -> CaptureFormat {
        for (index, output) in outputs.enumerated() {
            output.prepareBitrateLimit { [bitrate] in bitrate.limit($0, source: index) }
            if rotation == .passThrough { output.prepareRotationFallback(rotatePixels: { [encoder] in encoder.rotatePixels() }) }
            try await output.start(requestKeyFrame: { [encoder] in encoder.requestKeyFrame() })
        }
        let format = try await capturer.start(sink: encoder)
        if let audio, audio.isNeeded { audio.start() }
        logger.info("streaming", metadata: ["source": "\(capturer.name)", "format": "\(format)",
                                            "outputs": "\(outputs.map(\.name).joined(separator: ", "))"])
        return format
    }

    /// Stops the source, flushes the encoder into the outputs, then stops each output
    /// (recordings are finalized).
    public func stop() async {
        await capturer.stop()
        audio?.stop()
        encoder.finish()
        for output in outputs { await output.stop() }
    }

    /// How one encode can serve all of `outputs`: metadata only if each of them signals it.
    public static func rotationHandling(for outputs: [any StreamOutput]) -> VideoEncoderSettings.RotationHandling {
        !outputs.isEmpty && outputs.allSatisfy(\.carriesRotationMetadata) ? .passThrough : .rotatePhysically
    }

    /// Asks the encoder for a keyframe (an API call, a new viewer).
    public func requestKeyFrame() { encoder.requestKeyFrame() }

    /// Changes the configured bitrate while running (outputs adapting to their links may hold the
    /// encoder below it: ``bitrate``).
    public func setBitrate(_ bitsPerSecond: Int) { bitrate.setConfigured(bitsPerSecond) }

    public var status: Status {
        Status(captureDropped: capturer.droppedFrames, encoder: encoder.statistics, audioFramesEncoded: audio?.encodedFrames ?? 0,
               bitrate: bitrate.summary, outputs: outputs.map { ($0.name, $0.status) })
    }
}
