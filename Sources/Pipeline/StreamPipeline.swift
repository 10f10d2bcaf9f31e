import Capture
import Codec
import Logging
import MediaCore
import Synchronization

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
    private let fanout: EncodedVideoFanout
    private let encoder: EncoderQueue
    /// The encoder's bitrate: the configured one, capped by what adapting outputs ask for.
    public let bitrate: BitrateArbiter
    private let rotation: VideoEncoderSettings.RotationHandling
    private let audio: AudioPipeline?
    private let logger: Logger
    /// The bitrate arbiter's key for the next output: each output keeps its own for life.
    private let nextBitrateSource: Mutex<Int>

    /// Opens the encoders now, so bad settings fail before anything connects. With an audio
    /// source, each output that carries audio gets it in its codec (see ``StreamOutput/audioCodec``).
    /// Rotation: the encoder passes the capture's rotation through as metadata only when every
    /// output can signal it (``StreamOutput/carriesRotationMetadata``), else it turns the pixels; an
    /// output may switch it to turning them later (``StreamOutput/prepareRotationFallback(rotatePixels:)``).
    /// With `adaptation` the encode steps down under CPU overload (``EncoderQueue``), each step logged.
    public init(capturer: any VideoCapturer, encoderSettings: VideoEncoderSettings, audioSource: (any AudioSource)? = nil,
                outputs: [any StreamOutput], adaptation: CPUAdaptationSettings? = nil,
                logger: Logger = Logger(label: "livepush.pipeline")) throws(CodecError) {
        self.capturer = capturer
        self.logger = logger
        audio = try audioSource.map { (source) throws(CodecError) in try AudioPipeline(source: source, outputs: outputs, logger: logger) }
        var settings = encoderSettings
        settings.rotation = Self.rotationHandling(for: outputs)
        rotation = settings.rotation
        fanout = EncodedVideoFanout(outputs: outputs)
        let encoder = try EncoderQueue(settings: settings, sink: fanout, adaptation: adaptation, onRestart: { [logger, name = settings.encoderName] restarts in
            logger.warning("encoder wedged: no frame out for seconds while frames went in; reopened it with an IDR",
                           metadata: ["encoder": "\(name)", "restarts": "\(restarts)"])
        }, onAdaptationStep: { [logger] step in logger.log(level: step.isDown ? .warning : .info, "\(step)") })
        self.encoder = encoder
        bitrate = BitrateArbiter(configuredBitsPerSecond: settings.bitrateBitsPerSecond) { encoder.setBitrate($0) }
        nextBitrateSource = Mutex(0)
    }

    /// Every output frames go to now.
    public var outputs: [any StreamOutput] { fanout.outputs }

    /// Starts the outputs, then the source; returns the negotiated capture format.
    public func start() async throws -> CaptureFormat {
        for output in outputs { try await prepareAndStart(output) }
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

    /// Hands `output` the bitrate cap and rotation fallback every output gets, then starts it.
    private func prepareAndStart(_ output: any StreamOutput) async throws {
        let source = nextBitrateSource.withLock { next in
            defer { next += 1 }
            return next
        }
        output.prepareBitrateLimit { [bitrate] in bitrate.limit($0, source: source) }
        if rotation == .passThrough { output.prepareRotationFallback(rotatePixels: { [encoder] in encoder.rotatePixels() }) }
        try await output.start(requestKeyFrame: { [encoder] in encoder.requestKeyFrame() })
    }

    /// Whether ``attach(_:)`` can add `output` while running: the stream has no audio, or the
    /// output's codec is encoded already (an audio encoder opens only at start). If not, restart
    /// the pipeline with it.
    public func canAttach(_ output: any StreamOutput) -> Bool {
        audio?.canServe(output) ?? true
    }

    /// Adds `output` to the running stream (a reload that adds or changes one): it starts with the
    /// same bitrate cap, audio track and rotation handling as the others, then frames flow from
    /// the next keyframe, asked for at once. An output that cannot carry rotation metadata makes
    /// the encoder turn the pixels from then on. Check ``canAttach(_:)`` first. If it fails to
    /// start, the error is thrown and the stream is as before.
    public func attach(_ output: any StreamOutput) async throws {
        audio?.attach(output)
        do {
            try await prepareAndStart(output)
        } catch {
            audio?.detach(output)
            throw error
        }
        if rotation == .passThrough && !output.carriesRotationMetadata { encoder.rotatePixels() }
        fanout.add(output)
        encoder.requestKeyFrame()
    }

    /// Takes `output` out of the running stream and stops it (a recording is finalized); the
    /// other outputs carry on untouched.
    public func detach(_ output: any StreamOutput) async {
        fanout.remove(output)
        audio?.detach(output)
        await output.stop()
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
