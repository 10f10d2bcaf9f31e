import Codec
import Output
import Synchronization

/// Hands each encoded frame to every output: one encode, many destinations. Each frame is
/// stamped with the index of the rendition it belongs to (``Codec/EncodedVideoFrame/rendition``),
/// which outputs that serve every rendition go by.
/// Outputs only enqueue in `onEncodedFrame`, so the encoder thread never waits on any of them.
/// The list changes only when a reload adds or removes an output; each frame reads it under a
/// short lock (no copy, no allocation).
final class EncodedVideoFanout: EncodedVideoSink {
    private let list: Mutex<[any StreamOutput]>
    private let rendition: Int

    init(outputs: [any StreamOutput], rendition: Int = 0) {
        list = Mutex(outputs)
        self.rendition = rendition
    }

    var outputs: [any StreamOutput] { list.withLock { $0 } }

    func add(_ output: any StreamOutput) { list.withLock { $0.append(output) } }

    func remove(_ output: any StreamOutput) { list.withLock { $0.removeAll { $0 === output } } }

    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        var frame = frame
        frame.rendition = rendition
        for output in outputs { output.onEncodedFrame(frame) }
    }

    func onEncoderError(_ error: CodecError) {
        for output in outputs { output.onEncoderError(error) }
    }
}
