import Codec
import Recording

/// A local recording as one of the stream's outputs.
public final class RecordingOutput: StreamOutput {
    private let recorder: MP4Recorder

    public init(settings: RecordingSettings) { recorder = MP4Recorder(settings: settings) }

    public var name: String { "record:\(recorder.settings.path)" }

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
        return status
    }

    /// Files written so far (segments in order).
    public var files: [String] { recorder.statistics.files }
}
