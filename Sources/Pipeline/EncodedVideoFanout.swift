import Codec
import Synchronization

/// Hands each encoded frame to every output: one encode, many destinations.
/// Outputs only enqueue in `onEncodedFrame`, so the encoder thread never waits on any of them.
/// The list changes only when a reload adds or removes an output; each frame reads it under a
/// short lock (no copy, no allocation).
final class EncodedVideoFanout: EncodedVideoSink {
    private let list: Mutex<[any StreamOutput]>

    init(outputs: [any StreamOutput]) { list = Mutex(outputs) }

    var outputs: [any StreamOutput] { list.withLock { $0 } }

    func add(_ output: any StreamOutput) { list.withLock { $0.append(output) } }

    func remove(_ output: any StreamOutput) { list.withLock { $0.removeAll { $0 === output } } }

    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        for output in outputs { output.onEncodedFrame(frame) }
    }

    func onEncoderError(_ error: CodecError) {
        for output in outputs { output.onEncoderError(error) }
    }
}
