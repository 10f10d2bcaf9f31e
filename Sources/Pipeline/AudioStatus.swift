/// How a stream's audio track is doing: whether it captures now, and what it captured and encoded
/// so far (the counts stand still while an on-demand camera idles with its microphone).
public struct AudioStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Reading the source and encoding.
        case capturing
        /// Closed while an on-demand camera idles; it opens again when the camera starts.
        case paused
        /// Not started, stopped with the stream, or stopped by a capture error (``AudioStatus/lastError``).
        case stopped
    }

    public var state = State.stopped
    /// Chunks read from the source (10 ms each).
    public var chunksCaptured = 0
    /// Encoded frames handed to the outputs, every codec together.
    public var framesEncoded = 0
    /// Audio timestamps minus the capture clock (the video's), ms: what is left after correction,
    /// or the whole skew with correction off. Negative: the audio lags.
    public var clockSkewMillis = 0.0
    /// The source's sample clock against the capture clock, ppm (negative: it runs slow).
    public var clockDriftPPM = 0.0
    /// Frames inserted (positive) or dropped per million now to correct it.
    public var clockCorrectionPPM = 0.0
    /// Why capture stopped, or why it did not open again at a resume.
    public var lastError: String?

    public init() {}
}
