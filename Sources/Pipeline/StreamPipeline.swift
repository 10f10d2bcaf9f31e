import Capture
import Codec
import Logging
import MediaCore
import Output
import Synchronization

/// capture → encoders → outputs: one source, one encode per rendition, each fanned out to the
/// destinations that take it.
///
/// Each stage runs on its own thread behind a bounded queue that drops rather than waits: the
/// capturer's buffer pool, each rendition's ``EncoderQueue``, and each output's own queue. The
/// captured frame (after the capturer's processor: the overlay) goes to every rendition as the
/// same pooled buffer; each encoder scales it to its size, once per distinct size (``RenditionEncode``,
/// ``SharedScaler``), and a rendition at capture size encodes that buffer itself.
public final class StreamPipeline: Sendable {
    /// One encode of the camera: what outputs see of it and the encoder settings it opens with.
    public struct Rendition: Sendable {
        public var description: RenditionDescription
        public var settings: VideoEncoderSettings
        /// Thins the captured frames to this rate (a rendition below the capture rate); nil keeps every frame.
        public var maximumFramesPerSecond: Double?

        public init(description: RenditionDescription, settings: VideoEncoderSettings, maximumFramesPerSecond: Double? = nil) {
            self.description = description
            self.settings = settings
            self.maximumFramesPerSecond = maximumFramesPerSecond
        }

        /// One rendition straight from encoder settings (a camera with a single encode).
        public init(settings: VideoEncoderSettings, name: String = "main") {
            self.init(description: RenditionDescription(name: name, width: settings.width, height: settings.height,
                                                        framesPerSecond: settings.framesPerSecond,
                                                        bitrateBitsPerSecond: settings.bitrateBitsPerSecond),
                      settings: settings)
        }
    }

    /// How one rendition's encode is doing.
    public struct RenditionStatus: Sendable {
        public var description: RenditionDescription
        public var encoderName: String
        public var encoder: EncoderQueue.Statistics
        /// Captured frames left out to bring the capture rate down to the rendition's.
        public var framesThinned: Int
        public var bitrate: BitrateArbiter.Summary
        /// The outputs that take it (outputs that serve every rendition appear under each).
        public var outputs: [String]
    }

    public struct Status: Sendable {
        public var captureDropped: Int
        /// Every rendition's encoder together (frames submitted, encoded and dropped summed).
        public var encoder: EncoderQueue.Statistics
        /// The audio track; nil without one (no audio source, or no output carries audio).
        public var audio: AudioStatus?
        /// The top rendition's bitrate.
        public var bitrate: BitrateArbiter.Summary
        public var outputs: [(name: String, status: OutputStatus)]
        /// Each rendition, top first.
        public var renditions: [RenditionStatus]
    }

    /// Frames each rendition's encoder may hold waiting.
    public static let encoderQueueCapacity = 3

    /// The capturer's buffer pool for `renditions` encodes: each may hold its queue's frames plus
    /// the one it encodes, and the capture thread needs a few of its own (8 for one rendition, as before).
    public static func capturePoolCapacity(renditions: Int) -> Int { 4 + (encoderQueueCapacity + 1) * max(1, renditions) }

    public let capturer: any VideoCapturer
    private let encodes: [RenditionEncode]
    /// Between the capturer and the encodes: where `--duration` cuts the media.
    private let lengthLimit: MediaLengthLimit
    private let audio: AudioPipeline?
    private let logger: Logger
    /// Every output and the rendition it takes (ignored for outputs that serve all), in order.
    private let routes: Mutex<[(output: any StreamOutput, rendition: Int)]>
    /// The bitrate arbiter's key for the next output: each output keeps its own for life.
    private let nextBitrateSource: Mutex<Int>

    /// Opens every rendition's encoder now, so bad settings fail before anything connects.
    /// `outputs` pairs each output with the index of the rendition it takes (clamped to the list); an output that
    /// ``StreamOutput/servesAllRenditions`` takes every one. With an audio source, each output that
    /// carries audio gets it in its codec (see ``StreamOutput/audioCodec``), the track handed over at start.
    /// Rotation: a rendition's encoder passes the capture's rotation through as metadata only when
    /// every output it feeds can signal it (``StreamOutput/carriesRotationMetadata``), else it turns
    /// the pixels; an output may switch it to turning them later (``OutputStartContext/rotatePixels``).
    /// With `adaptation` the renditions' encodes step down under CPU overload together, the
    /// lowest-priority (last) rendition first, and climb back top first (``CPUAdaptationPeers``),
    /// each step logged with the rendition's name. `audioThreadName` names the audio capture thread ("mic:door");
    /// `audioClockCorrection` off leaves the audio on its device's clock, the skew only measured (``AudioClockSync``).
    /// With two or more renditions, keyframes are placed by capture time before the encoders' queues
    /// (``KeyFrameSchedule``), so renditions with one interval key the same captured frames even when one
    /// drops frames (multitrack RTMP switches viewers between tracks at keyframes); one rendition keeps
    /// its encoder's own GOP.
    ///
    /// `beforeFirstFrames` runs on the capture thread before each of the first two frames goes to any
    /// encoder (``FirstFramesAction``: `stream` and `serve` shed the file pages of opening, then of
    /// the first frame, there).
    public init(capturer: any VideoCapturer, renditions: [Rendition], audioSource: (any AudioSource)? = nil,
                outputs: [(output: any StreamOutput, rendition: Int)], adaptation: CPUAdaptationSettings? = nil,
                audioThreadName: ThreadName = ThreadName("mic"), audioClockCorrection: Bool = true,
                beforeFirstFrames: (@Sendable () -> Void)? = nil,
                logger: Logger = Logger(label: "livepush.pipeline")) throws(CodecError) {
        guard !renditions.isEmpty else { throw .invalidSetting(setting: "renditions", value: "none", reason: "a camera needs at least one encode") }
        self.capturer = capturer
        self.logger = logger
        let outputs = outputs.map { (output: $0.output, rendition: min(max(0, $0.rendition), renditions.count - 1)) }
        let plain = outputs.map(\.output)
        audio = try audioSource.map { (source) throws(CodecError) in 
            try AudioPipeline(source: source, outputs: plain, threadName: audioThreadName, clockCorrection: audioClockCorrection, logger: logger)
        }
        var encodes: [RenditionEncode] = []
        let peers = adaptation != nil && renditions.count > 1 ? CPUAdaptationPeers(count: renditions.count) : nil
        let scalers = RenditionEncode.sharedScalers(for: renditions)
        for (index, rendition) in renditions.enumerated() {
            let taking = outputs.filter { $0.output.servesAllRenditions || $0.rendition == index }.map(\.output)
            encodes.append(try RenditionEncode(index: index, rendition: rendition, outputs: taking, keyFramesByCaptureTime: renditions.count > 1,
                                               adaptation: adaptation, peers: peers, sharedScaler: scalers[index], logger: logger))
        }
        self.encodes = encodes
        let toEncodes: any VideoSink = encodes.count == 1 ? encodes[0] : RenditionSplitter(encodes: encodes)
        lengthLimit = MediaLengthLimit(next: beforeFirstFrames.map { FirstFramesAction(next: toEncodes, frames: Self.framesActedBefore, action: $0) } ?? toEncodes)
        routes = Mutex(outputs)
        nextBitrateSource = Mutex(0)
    }

    /// How many of a camera's first frames `beforeFirstFrames` runs before: the first (all is open,
    /// nothing encoded) and the second (the first, an IDR with each output's header, has been through).
    static let framesActedBefore = 2

    /// One encode for every output (a camera without renditions).
    public convenience init(capturer: any VideoCapturer, encoderSettings: VideoEncoderSettings, audioSource: (any AudioSource)? = nil,
                            outputs: [any StreamOutput], adaptation: CPUAdaptationSettings? = nil, audioClockCorrection: Bool = true,
                            logger: Logger = Logger(label: "livepush.pipeline")) throws(CodecError) {
        try self.init(capturer: capturer, renditions: [Rendition(settings: encoderSettings)], audioSource: audioSource,
                      outputs: outputs.map { ($0, 0) }, adaptation: adaptation, audioClockCorrection: audioClockCorrection, logger: logger)
    }

    /// Every output frames go to now.
    public var outputs: [any StreamOutput] { routes.withLock { $0.map(\.output) } }

    /// The renditions, top first, as outputs that serve all of them see them.
    public var renditions: [RenditionDescription] { encodes.map(\.description) }

    /// The top rendition's bitrate: the configured one, capped by what adapting outputs ask for.
    public var bitrate: BitrateArbiter { encodes[0].bitrate }

    /// Starts the outputs, then the source; returns the negotiated capture format.
    public func start() async throws -> CaptureFormat {
        for (output, rendition) in routes.withLock({ $0 }) { try await output.start(startContext(for: output, rendition: rendition)) }
        let format = try await capturer.start(sink: lengthLimit)
        if let audio, audio.isNeeded { audio.start() }
        logger.info("streaming", metadata: ["source": "\(capturer.name)", "format": "\(format)",
                                            "renditions": "\(encodes.map { "\($0.description.name) \($0.description.width)x\($0.description.height)" }.joined(separator: ", "))",
                                            "outputs": "\(outputs.map(\.name).joined(separator: ", "))"])
        return format
    }

    /// Stops the source, flushes every encoder into its outputs, then stops each output
    /// (recordings are finalized).
    public func stop() async {
        await capturer.stop()
        audio?.stop()
        for encode in encodes { encode.encoder.finish() }
        for output in outputs { await output.stop() }
    }

    /// Ends the media `seconds` of capture time after its first frame: later frames reach no
    /// encoder (``mediaEnded`` then says so, and the caller stops the pipeline).
    public func endMedia(afterSeconds seconds: Double) { lengthLimit.end(afterSeconds: seconds) }

    /// A frame past the length ``endMedia(afterSeconds:)`` set has arrived, or the source has no
    /// more frames (a file played to its end without looping).
    public var mediaEnded: Bool { lengthLimit.ended }

    /// Closes the audio source while an on-demand camera idles (``CameraCapturer/suspend()`` closes
    /// the video side): no device held, nothing captured or encoded; the outputs keep their track.
    public func pauseAudio() { audio?.pause() }

    /// Opens the audio source again as the camera resumes; its chunks are timestamped at capture,
    /// on the video's clock. Throws, audio staying paused, when the device does not open.
    public func resumeAudio() throws(CaptureError) { try audio?.resume() }

    /// The encodes `output` takes frames from: its rendition's, or every one.
    private func encodes(for output: any StreamOutput, rendition: Int) -> [RenditionEncode] {
        output.servesAllRenditions ? encodes : [encodes[rendition]]
    }

    /// What `output` starts with: key frames from the encodes it takes, its audio track, a bitrate
    /// cap of its own (a new arbiter key), the rotation fallback while one of its encodes passes
    /// rotation through, and the renditions if it serves all (``OutputStartContext/restricted(to:)``).
    /// An output that serves every rendition caps the lowest one: the top ones stay for the outputs
    /// that take them.
    private func startContext(for output: any StreamOutput, rendition: Int) -> OutputStartContext {
        let source = nextBitrateSource.withLock { next in
            defer { next += 1 }
            return next
        }
        let targets = encodes(for: output, rendition: rendition)
        let capped = output.servesAllRenditions ? encodes[encodes.count - 1] : targets[0]
        let passingThrough = targets.filter { $0.rotation == .passThrough }
        let rotatePixels: (@Sendable () -> Void)? = passingThrough.isEmpty ? nil : { @Sendable in
            for encode in passingThrough { encode.encoder.rotatePixels() }
        }
        let everyRendition = OutputStartContext.Renditions(list: renditions, requestKeyFrame: { [encodes] index in
            guard encodes.indices.contains(index) else { return }
            encodes[index].encoder.requestKeyFrame()
        }, requestAlignedKeyFrames: { [encodes] indices in
            let now = MonotonicClock.nowNanos()
            for index in indices where encodes.indices.contains(index) { encodes[index].encoder.requestKeyFrame(capturedFrom: now) }
        })
        let context = OutputStartContext(requestKeyFrame: { for encode in targets { encode.encoder.requestKeyFrame() } },
                                         audioTrack: audio?.track(for: output),
                                         limitBitrate: { [bitrate = capped.bitrate] in bitrate.limit($0, source: source) },
                                         rotatePixels: rotatePixels, renditions: everyRendition)
        return context.restricted(to: output)
    }

    /// Whether ``attach(_:rendition:)`` can add `output` while running: the stream has no audio, or
    /// the output's codec is encoded already (an audio encoder opens only at start). If not,
    /// restart the pipeline with it.
    public func canAttach(_ output: any StreamOutput) -> Bool {
        audio?.canServe(output) ?? true
    }

    /// Adds `output` to the running stream (a reload that adds or changes one), taking rendition
    /// `rendition` (or every one, if it serves all): it starts with the same kind of context as the
    /// others (bitrate cap, audio track, rotation handling), then audio flows from the next chunk
    /// and video from the next keyframe, asked for at once. An output that cannot carry rotation
    /// metadata makes its encoder turn the pixels from then on. Check ``canAttach(_:)`` first. If
    /// it fails to start, the error is thrown and the stream is as before.
    public func attach(_ output: any StreamOutput, rendition: Int = 0) async throws {
        let rendition = min(max(0, rendition), encodes.count - 1)
        try await output.start(startContext(for: output, rendition: rendition))
        audio?.attach(output)
        for encode in encodes(for: output, rendition: rendition) {
            if encode.rotation == .passThrough && !output.carriesRotationMetadata { encode.encoder.rotatePixels() }
            encode.fanout.add(output)
            encode.encoder.requestKeyFrame()
        }
        routes.withLock { $0.append((output, rendition)) }
    }

    /// Takes `output` out of the running stream and stops it (a recording is finalized); the
    /// other outputs carry on untouched.
    public func detach(_ output: any StreamOutput) async {
        for encode in encodes { encode.fanout.remove(output) }
        routes.withLock { $0.removeAll { $0.output === output } }
        audio?.detach(output)
        await output.stop()
    }

    /// How one encode can serve all of `outputs`: metadata only if each of them signals it.
    public static func rotationHandling(for outputs: [any StreamOutput]) -> VideoEncoderSettings.RotationHandling {
        !outputs.isEmpty && outputs.allSatisfy(\.carriesRotationMetadata) ? .passThrough : .rotatePhysically
    }

    /// Asks every rendition's encoder for a keyframe (an API call, a new viewer).
    public func requestKeyFrame() {
        for encode in encodes { encode.encoder.requestKeyFrame() }
    }

    /// Changes the top rendition's configured bitrate while running (outputs adapting to their
    /// links may hold the encoder below it: ``bitrate``).
    public func setBitrate(_ bitsPerSecond: Int) { setBitrate(bitsPerSecond, rendition: 0) }

    /// Changes one rendition's configured bitrate while running.
    public func setBitrate(_ bitsPerSecond: Int, rendition: Int) {
        guard encodes.indices.contains(rendition) else { return }
        encodes[rendition].bitrate.setConfigured(bitsPerSecond)
    }

    public var status: Status {
        let renditions = encodes.map(\.status)
        // The counts of every rendition; the adaptation shown for the camera is the top rendition's.
        let total = renditions.dropFirst().reduce(renditions[0].encoder) { $0.adding($1.encoder) }
        return Status(captureDropped: capturer.droppedFrames, encoder: total, audio: audio.flatMap { $0.isNeeded ? $0.status : nil },
                      bitrate: encodes[0].bitrate.summary, outputs: outputs.map { ($0.name, $0.status) }, renditions: renditions)
    }
}
