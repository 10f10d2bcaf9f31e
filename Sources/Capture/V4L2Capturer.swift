/// A V4L2 camera as a capturer: ``V4L2Source`` on its own thread, re-opened after unplug or stall.
/// Switch cameras while running with `switchSource(to: V4L2Source(selector: "/dev/video2"))`.
public typealias V4L2Capturer = ThreadedCapturer<V4L2Source>
