import MediaCore

/// Something that yields audio chunks: an ALSA device, or a synthetic source. `read()` blocks
/// until the next chunk is due, so a capture loop is simply `while running { try read() }`.
public protocol AudioSource: AnyObject {
    var format: AudioFormat { get }
    func read() throws(CaptureError) -> AudioChunk
    func close()
    /// Opens the source again after ``close()`` (an on-demand camera's microphone idles with the
    /// camera and resumes with it): chunks go on from now, timestamped at their capture, the pause
    /// between left out.
    func reopen() throws(CaptureError)
}
