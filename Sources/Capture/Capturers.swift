/// The moving test card as a capturer (see ``TestPatternSource``).
public typealias TestPatternCapturer = ThreadedCapturer<TestPatternSource>
/// A video file decoded and paced at its own frame rate, like WebRTC's `RTCFileVideoCapturer`.
public typealias FileCapturer = ThreadedCapturer<FileSource>
