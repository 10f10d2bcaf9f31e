import Codec
import Logging
import MediaCore
import Synchronization

/// Records the encoded stream to fragmented MP4 on its own thread, as one output of the fan-out.
///
/// It never blocks the encoder: frames go through a ``BoundedWorker``; if the disk stalls long
/// enough to fill it, frames are refused and counted (the file stays playable). Recording starts
/// at the first keyframe and, with segmenting, each new file starts at a keyframe too.
public final class MP4Recorder: EncodedVideoSink {
    public struct Statistics: Sendable, Equatable {
        public var framesWritten = 0
        public var bytesWritten: Int64 = 0
        public var droppedFrames = 0
        public var audioFramesWritten = 0
        public var droppedAudioFrames = 0
        public var files: [String] = []
        public var lastError: RecordingError?
    }

    public let settings: RecordingSettings
    private let logger: Logger
    /// What the recording thread writes, in arrival order.
    enum Item: Sendable {
        case video(EncodedVideoFrame)
        case audio(EncodedAudioFrame)
    }

    private let worker: BoundedWorker<Item>
    private let writer: SegmentWriter

    /// `audio` describes an AAC track to record beside the video (frames via ``onEncodedAudio(_:)``).
    public init(settings: RecordingSettings, audio: AudioTrack? = nil, logger: Logger = Logger(label: "livepush.recording")) {
        self.settings = settings
        self.logger = logger
        let writer = SegmentWriter(settings: settings, audio: audio, logger: logger)
        self.writer = writer
        worker = BoundedWorker(name: ThreadName("rec"), capacity: settings.queueCapacity,
                               handle: { writer.write($0) }, finish: { writer.close() })
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        if !worker.submit(.video(frame)) { writer.statistics.withLock { $0.droppedFrames += 1 } }
    }

    public func onEncodedAudio(_ frame: EncodedAudioFrame) {
        if !worker.submit(.audio(frame)) { writer.statistics.withLock { $0.droppedAudioFrames += 1 } }
    }

    public func onEncoderError(_ error: CodecError) {
        logger.error("encoder stopped; recording ends", metadata: ["error": "\(error)"])
    }

    /// Writes what is queued and finalizes the current file.
    public func finish() { worker.finish() }

    public var statistics: Statistics { writer.statistics.withLock { $0 } }
}

/// The recording thread's state: the open file and segment rotation.
private final class SegmentWriter: @unchecked Sendable {
    let settings: RecordingSettings
    let audio: AudioTrack?
    let logger: Logger
    let statistics = Mutex(MP4Recorder.Statistics())
    var file: FragmentedMP4Writer?
    var segmentIndex = 0
    var segmentStartNanos: Int64 = 0
    var failed = false

    init(settings: RecordingSettings, audio: AudioTrack?, logger: Logger) {
        self.settings = settings
        self.audio = audio
        self.logger = logger
    }

    func write(_ item: MP4Recorder.Item) {
        guard !failed else { return }
        switch item {
        case let .video(frame): write(frame)
        case let .audio(frame): write(frame)
        }
    }

    private func write(_ frame: EncodedAudioFrame) {
        do throws(RecordingError) {
            let bytes = try file?.write(frame) ?? 0
            guard bytes > 0 else { return }
            statistics.withLock {
                $0.audioFramesWritten += 1
                $0.bytesWritten += Int64(bytes)
            }
        } catch {
            fail(error)
        }
    }

    private func write(_ frame: EncodedVideoFrame) {
        do throws(RecordingError) {
            if frame.isKeyFrame, shouldRotate(at: frame.dtsNanos) { try closeFile() }
            if file == nil {
                guard frame.isKeyFrame else { return }
                try open(startingWith: frame)
            }
            let bytes = try file?.write(frame) ?? 0
            statistics.withLock {
                $0.framesWritten += 1
                $0.bytesWritten += Int64(bytes)
            }
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: RecordingError) {
        failed = true
        statistics.withLock { $0.lastError = error }
        logger.error("recording stopped", metadata: ["error": "\(error)"])
    }

    func close() {
        do { try closeFile() } catch {
            statistics.withLock { $0.lastError = error }
        }
    }

    /// Capture jitter can put the keyframe that ends a segment a few milliseconds early.
    static let rotationToleranceSeconds = 0.1

    private func shouldRotate(at dtsNanos: Int64) -> Bool {
        guard let seconds = settings.segmentSeconds, file != nil else { return false }
        return Double(dtsNanos - segmentStartNanos) / 1e9 >= seconds - Self.rotationToleranceSeconds
    }

    private func open(startingWith frame: EncodedVideoFrame) throws(RecordingError) {
        let size = try Self.frameSize(of: frame)
        let path = settings.path(forSegment: segmentIndex)
        file = try FragmentedMP4Writer(path: path, firstKeyFrame: frame, width: size.width, height: size.height, audio: audio)
        segmentIndex += 1
        segmentStartNanos = frame.dtsNanos
        statistics.withLock { $0.files.append(path) }
        logger.info("recording", metadata: ["file": "\(path)"])
    }

    private func closeFile() throws(RecordingError) {
        defer { file = nil }
        try file?.close()
    }

    /// The picture size from the SPS (the encoder's frames carry no separate size).
    static func frameSize(of frame: EncodedVideoFrame) throws(RecordingError) -> (width: Int, height: Int) {
        if frame.codec == .av1 { throw .unsupportedCodec("AV1") }
        guard let size = frame.parameterSets.pictureSize else { throw .missingParameterSets }
        return size
    }
}
