import Codec

/// What a UDP output does with a frame when its socket has backed up. NIO queues datagram writes
/// without bound while the kernel refuses them (its send buffer is full: the link stalled), so left
/// alone an output would buffer seconds of video in the process and send it late. Instead, once the
/// channel's pending writes pass the output's limit (the channel is not writable), the frame is not
/// written: it is dropped and counted, a key frame is asked for as the gap opens, and the delta
/// frames after it are held back (their reference is gone) until a key frame goes out, as after a
/// drop at the hand-off queue (``KeyFrameGate``, which this gate reuses one step later in the path).
///
/// A key frame that finds the socket still backed up is dropped too; rather than ask for one more
/// every frame while the link stays stalled (each would be dropped in turn), the gate asks once
/// more when the socket takes frames again.
///
/// Confined to the output's event loop, where the channel's writability is read.
public struct SocketBacklogGate: Sendable {
    private let keyFrames = KeyFrameGate()
    /// A key frame was asked for since the socket last took a frame.
    private var requestedWhileBackedUp = false
    /// The key frame asked for was dropped too: ask again once the socket takes frames.
    private var askWhenWritable = false
    /// Frames not written because the socket's backlog was past its limit.
    public private(set) var framesDropped = 0

    public init() {}

    /// Delta frames not written after such a drop, waiting for the next key frame.
    public var framesHeldBack: Int { keyFrames.framesHeldBack }

    /// Whether to write `frame` now: false for a delta frame while a gap waits for its key frame,
    /// and false (a drop) when the socket is not writable. `requestKeyFrame` runs as a gap opens,
    /// and when the socket is writable again after the key frame asked for was dropped.
    public mutating func admits(_ frame: EncodedVideoFrame, socketWritable: Bool, requestKeyFrame: () -> Void) -> Bool {
        if socketWritable {
            requestedWhileBackedUp = false
            if askWhenWritable {
                askWhenWritable = false
                requestKeyFrame()
            }
        }
        guard keyFrames.admits(frame) else { return false }
        guard socketWritable else {
            framesDropped += 1
            _ = keyFrames.frameLost()
            if requestedWhileBackedUp {
                askWhenWritable = true
            } else {
                requestedWhileBackedUp = true
                requestKeyFrame()
            }
            return false
        }
        return true
    }
}
