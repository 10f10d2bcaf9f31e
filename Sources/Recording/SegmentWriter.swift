import Codec
import Logging
import MediaCore
import Synchronization

/// The recording thread's state: the open file, and when to continue in a new one.
///
/// A new file starts at a key frame when a segment's time is up, and at a key frame whose parameter
/// sets differ from the open file's (CPU adaptation reopening the encoder at another size or frame
/// rate): an `avc1`/`hvc1` track must carry every parameter set its samples use in its sample entry
/// (ISO/IEC 14496-15), and that entry is fixed when the file's header is written. Audio is held
/// until the video has passed it (``PendingAudio``), so every AAC frame lands in the file whose
/// video it plays beside; the previous file stays open for audio from before the change that
/// arrives after it.
final class SegmentWriter: @unchecked Sendable {
    let settings: RecordingSettings
    let audio: AudioTrack?
    let logger: Logger
    /// Capture stamps → wall clock, for each file's `prft` boxes.
    let wallClock: WallClockMapping
    let statistics = Mutex(MP4Recorder.Statistics())
    private var file: FragmentedMP4Writer?
    /// The file before the last change, open only for audio from before ``boundaryNanos``.
    private var previous: FragmentedMP4Writer?
    /// The first video DTS of the open file.
    private var boundaryNanos: Int64 = 0
    private var pending = PendingAudio()
    private var segmentIndex = 0
    private var failed = false

    init(settings: RecordingSettings, audio: AudioTrack?, wallClock: WallClockMapping, logger: Logger) {
        self.settings = settings
        self.audio = audio
        self.wallClock = wallClock
        self.logger = logger
    }

    func write(_ item: MP4Recorder.Item) {
        guard !failed else { return }
        do throws(RecordingError) {
            switch item {
            case let .video(frame): try write(frame)
            case let .audio(frame):
                pending.add(frame)
                while let ready = pending.popReady() { try write(ready) }
            }
        } catch {
            fail(error)
        }
    }

    private func write(_ frame: EncodedAudioFrame) throws(RecordingError) {
        let target = frame.ptsNanos < boundaryNanos && previous != nil ? previous : file
        let bytes = try target?.write(frame) ?? 0
        if target === file, previous != nil { try closePrevious() }
        guard bytes > 0 else { return }
        statistics.withLock {
            $0.audioFramesWritten += 1
            $0.bytesWritten += Int64(bytes)
        }
    }

    private func write(_ frame: EncodedVideoFrame) throws(RecordingError) {
        // Audio from before this frame belongs with the video written so far.
        pending.videoPassed(frame.dtsNanos)
        while let ready = pending.popReady() { try write(ready) }
        if frame.isKeyFrame, let reason = try newFileReason(at: frame) {
            try closePrevious()
            previous = file
            file = nil
            if audio == nil { try closePrevious() }
            try open(startingWith: frame, reason: reason)
        }
        if file == nil {
            guard frame.isKeyFrame else { return }
            try open(startingWith: frame, reason: nil)
        }
        let bytes = try file?.write(frame) ?? 0
        statistics.withLock {
            $0.framesWritten += 1
            $0.bytesWritten += Int64(bytes)
        }
    }

    private func fail(_ error: RecordingError) {
        failed = true
        statistics.withLock { $0.lastError = error }
        logger.error("recording stopped", metadata: ["error": "\(error)"])
    }

    /// Writes the audio still held and closes the files.
    func close() {
        do throws(RecordingError) {
            while !failed, let ready = pending.popAny() { try write(ready) }
            try closePrevious()
            defer { file = nil }
            try file?.close()
        } catch {
            statistics.withLock { $0.lastError = error }
        }
    }

    private func closePrevious() throws(RecordingError) {
        defer { previous = nil }
        try previous?.close()
    }

    /// Capture jitter can put the keyframe that ends a segment a few milliseconds early.
    static let rotationToleranceSeconds = 0.1

    /// Why `frame` (a key frame) must start a new file, for the log; nil to continue the open one.
    private func newFileReason(at frame: EncodedVideoFrame) throws(RecordingError) -> String? {
        guard let file else { return nil }
        if frame.parameterSets != file.parameterSets {
            let size = try Self.frameSize(of: frame)
            guard size != (file.width, file.height) else { return "parameter sets changed" }
            return "picture size \(file.width)x\(file.height) → \(size.width)x\(size.height)"
        }
        guard let seconds = settings.segmentSeconds else { return nil }
        return Double(frame.dtsNanos - boundaryNanos) / 1e9 >= seconds - Self.rotationToleranceSeconds ? "segment time" : nil
    }

    private func open(startingWith frame: EncodedVideoFrame, reason: String?) throws(RecordingError) {
        let size = try Self.frameSize(of: frame)
        let path = settings.path(forSegment: segmentIndex)
        file = try FragmentedMP4Writer(path: path, firstKeyFrame: frame, width: size.width, height: size.height, audio: audio,
                                   wallClock: wallClock)
        segmentIndex += 1
        boundaryNanos = frame.dtsNanos
        statistics.withLock {
            $0.files.append(path)
            if $0.files.count > MP4Recorder.Statistics.filesKept { $0.files.removeFirst() }
        }
        var metadata: Logger.Metadata = ["file": "\(path)", "size": "\(size.width)x\(size.height)"]
        if let reason { metadata["reason"] = "\(reason)" }
        logger.info(reason == nil ? "recording" : "recording continues in a new file", metadata: metadata)
    }

    /// The picture size from the SPS (the encoder's frames carry no separate size).
    static func frameSize(of frame: EncodedVideoFrame) throws(RecordingError) -> (width: Int, height: Int) {
        if frame.codec == .av1 { throw .unsupportedCodec("AV1") }
        guard let size = frame.parameterSets.pictureSize else { throw .missingParameterSets }
        return size
    }
}
