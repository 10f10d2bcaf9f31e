/// Receives what an ``EncoderQueue`` produces.
///
/// Contract (as WebRTC's `VideoSinkInterface`): calls come from the encoder thread, one at a time,
/// in decode order; an implementation must not block — it hands the frame to its own bounded queue
/// and counts what it drops there. After ``EncoderQueue/finish()`` returns there are no further calls.
public protocol EncodedVideoSink: AnyObject, Sendable {
    func onEncodedFrame(_ frame: EncodedVideoFrame)
    /// Encoding failed; the queue has stopped and drops every later frame.
    func onEncoderError(_ error: CodecError)
}
