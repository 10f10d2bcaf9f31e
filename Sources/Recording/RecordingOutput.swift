import Codec
import Output
import Synchronization

/// A local recording as one of the stream's outputs.
public final class RecordingOutput: StreamOutput {
    private let settings: RecordingSettings
    /// Made at ``prepareAudio(_:)`` (with the AAC track) or at ``start(requestKeyFrame:)``; fixed after that.
    private let recorderSlot = Mutex<MP4Recorder?>(nil)
    private var recorder: MP4Recorder {
        recorderSlot.withLock { slot in
            if let slot { return slot }
            let made = MP4Recorder(settings: settings)
            slot = made
            return made
        }
    }

    public init(settings: RecordingSettings) { self.settings = settings }

    /// MP4 carries AAC.
    public var audioCodec: AudioCodec? { .aac }

    public func prepareAudio(_ track: AudioTrack) {
        recorderSlot.withLock { $0 = MP4Recorder(settings: settings, audio: track) }
    }

    public func onEncodedAudio(_ frame: EncodedAudioFrame) { recorder.onEncodedAudio(frame) }

    public var name: String { "record:\(settings.path)" }

    public func start(requestKeyFrame: @escaping @Sendable () -> Void) async throws {
        // Recording begins at the next keyframe; ask for one rather than wait a whole GOP.
        requestKeyFrame()
    }

    public func stop() async { recorder.finish() }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) { recorder.onEncodedFrame(frame) }
    public func onEncoderError(_ error: CodecError) { recorder.onEncoderError(error) }

    public var status: OutputStatus {
        let stats = recorder.statistics
        var status = OutputStatus(state: stats.lastError == nil ? .running : .failed)
        status.framesSent = stats.framesWritten
        status.framesDropped = stats.droppedFrames
        status.bytesSent = stats.bytesWritten
        status.lastError = stats.lastError?.description
        status.recordingFiles = stats.files
        return status
    }
}
