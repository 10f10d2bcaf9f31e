import Codec
import Output
import Synchronization

/// A local recording as one of the stream's outputs.
public final class RecordingOutput: StreamOutput {
    private let settings: RecordingSettings
    /// Made at ``start(_:)``, with the context's AAC track if the stream has audio; nil before.
    private let recorder = Mutex<MP4Recorder?>(nil)

    public init(settings: RecordingSettings) { self.settings = settings }

    /// MP4 carries AAC.
    public var audioCodec: AudioCodec? { .aac }

    public func onEncodedAudio(_ frame: EncodedAudioFrame) { recorder.withLock { $0 }?.onEncodedAudio(frame) }

    public var name: String { "record:\(settings.path)" }

    public func start(_ context: OutputStartContext) async throws {
        recorder.withLock { $0 = MP4Recorder(settings: settings, audio: context.audioTrack) }
        // Recording begins at the next keyframe; ask for one rather than wait a whole GOP.
        context.requestKeyFrame()
    }

    public func stop() async { recorder.withLock { $0 }?.finish() }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) { recorder.withLock { $0 }?.onEncodedFrame(frame) }
    public func onEncoderError(_ error: CodecError) { recorder.withLock { $0 }?.onEncoderError(error) }

    /// Starting (nothing written yet) until ``start(_:)``.
    public var status: OutputStatus {
        guard let recorder = recorder.withLock({ $0 }) else { return OutputStatus(state: .starting) }
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
