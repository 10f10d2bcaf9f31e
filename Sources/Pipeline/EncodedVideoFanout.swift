import Codec

/// Hands each encoded frame to every output: one encode, many destinations.
/// Outputs only enqueue in `onEncodedFrame`, so the encoder thread never waits on any of them.
final class EncodedVideoFanout: EncodedVideoSink {
    /// Fixed for the pipeline's life (``ControlledOutput`` handles stop/start inside its slot).
    private let outputs: [any StreamOutput]

    init(outputs: [any StreamOutput]) { self.outputs = outputs }

    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        for output in outputs { output.onEncodedFrame(frame) }
    }

    func onEncoderError(_ error: CodecError) {
        for output in outputs { output.onEncoderError(error) }
    }
}
