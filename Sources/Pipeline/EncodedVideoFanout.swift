import Codec
import Synchronization

/// Hands each encoded frame to every output: one encode, many destinations.
/// Outputs only enqueue in `onEncodedFrame`, so the encoder thread never waits on any of them.
final class EncodedVideoFanout: EncodedVideoSink {
    private let outputs: Mutex<[any StreamOutput]>

    init(outputs: [any StreamOutput]) { self.outputs = Mutex(outputs) }

    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        for output in outputs.withLock({ $0 }) { output.onEncodedFrame(frame) }
    }

    func onEncoderError(_ error: CodecError) {
        for output in outputs.withLock({ $0 }) { output.onEncoderError(error) }
    }
}
