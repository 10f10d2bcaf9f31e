import CFFmpegFormat
import Codec
import Logging
import MediaCore
import Synchronization

/// Records the encoded stream to fragmented MP4 on its own thread, as one output of the fan-out.
///
/// It never blocks the encoder: frames go through a ``BoundedWorker``; if the disk stalls long
/// enough to fill it, frames are refused and counted (the file stays playable). Recording starts
/// at the first keyframe and, with segmenting, each new file starts at a keyframe too; so does the
/// file that continues the recording when the encoder's parameter sets change (a new picture size
/// under CPU adaptation), named as ``RecordingSettings/path(forSegment:)`` says.
public final class MP4Recorder: EncodedVideoSink {
    public struct Statistics: Sendable, Equatable {
        public var framesWritten = 0
        public var bytesWritten: Int64 = 0
        public var droppedFrames = 0
        public var audioFramesWritten = 0
        public var droppedAudioFrames = 0
        /// The files written, in order: segments, and the continuations a parameter-set change
        /// starts; the latest ``filesKept`` only, since a service segmenting every 10 minutes for
        /// months would otherwise grow this (and every status answer) without bound.
        public var files: [String] = []
        public static let filesKept = 100
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

    /// `audio` describes an AAC track to record beside the video (frames via ``onEncodedAudio(_:)``);
    /// `wallClock` dates the frames' capture stamps in each fragment's `prft` box.
    public init(settings: RecordingSettings, audio: AudioTrack? = nil, wallClock: WallClockMapping = .sampleNow(),
                logger: Logger = Logger(label: "livepush.recording")) {
        self.settings = settings
        self.logger = logger
        _ = lp_avformat_open_library()  // loaded while the camera opens: see its header
        let writer = SegmentWriter(settings: settings, audio: audio, wallClock: wallClock, logger: logger)
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
