/// Where keyframes go by capture time, decided once per captured frame before any encoder sees it:
/// the first frame, then the frame at each interval mark (first mark + k × interval) — the first one
/// captured from half a frame before the mark on, so a camera at the nominal rate keys every
/// `interval × fps` frames, as an encoder's own GOP counter would.
///
/// Renditions whose keyframes must line up (tracks a server switches viewers between) each run one
/// over the same captured frames, so they key the same frames whatever each encoder drops later; an
/// encoder counting frames cannot do that once one rendition drops one. A gap in the capture skips
/// the marks it jumped over and keeps the grid.
public struct KeyFrameSchedule: Sendable, Equatable {
    public let intervalNanos: Int64
    /// How early a frame may come and still take a mark: half a frame.
    public let toleranceNanos: Int64
    private var nextMarkNanos: Int64?

    public init(intervalSeconds: Double, framesPerSecond: Int) {
        intervalNanos = max(1, Int64((intervalSeconds * 1_000_000_000).rounded()))
        toleranceNanos = min(intervalNanos / 2, 500_000_000 / Int64(max(1, framesPerSecond)))
    }

    /// Whether the frame captured at `captureTimeNanos` (the next one, in capture order) is a keyframe.
    public mutating func isKeyFrame(captureTimeNanos: Int64) -> Bool {
        guard let mark = nextMarkNanos else {
            nextMarkNanos = captureTimeNanos + intervalNanos
            return true
        }
        guard captureTimeNanos >= mark - toleranceNanos else { return false }
        let marksPassed = (captureTimeNanos + toleranceNanos - mark) / intervalNanos + 1
        nextMarkNanos = mark + marksPassed * intervalNanos
        return true
    }
}
