import MediaCore
import Synchronization

/// Scales captured frames to one size for every rendition of that size, so two renditions of one
/// size (720p at 3 Mbit/s and 720p at 1 Mbit/s) scale each captured frame once, not once each.
///
/// The first encoder thread that needs a frame at this size scales it (libyuv) into a buffer from
/// this scaler's own pool and keeps it among the last few frames it scaled; a sibling encoder that
/// asks for the same captured frame takes that very buffer (read-only from then on: encoders only
/// read their input). A frame is recognised by its capture buffer's identity and capture time.
///
/// Why on the encoder threads and not in a scale stage of its own: no extra thread or queue per
/// size, nothing on the capture thread, and a frame that every rendition of the size thins out or
/// drops is never scaled. The cost: a sibling asking while the scale runs waits for it (it would
/// otherwise do the same work itself). A sibling lagging more than ``recentCapacity`` frames
/// behind scales its frame again (counted as a scale of its own).
///
/// Frames an encoder turns physically are not shared: it turns them first, then scales them itself.
public final class SharedScaler: Sendable {
    public let width: Int
    public let height: Int
    /// Scaled frames kept for siblings: enough for one encoder queue's lag behind another.
    public let recentCapacity: Int
    private let pool: FrameBufferPool
    /// The last scaled frames, oldest first (at most ``recentCapacity``; reserved up front so the
    /// steady state appends without allocating).
    private let recent: Mutex<[Entry]>

    private struct Entry {
        var source: ObjectIdentifier
        var captureTimeNanos: Int64
        var scaled: I420Buffer
    }

    /// A scaler for `sharers` encoders of `width` × `height`, each of which may be up to
    /// `recentCapacity` frames behind the others.
    public init(width: Int, height: Int, sharers: Int, recentCapacity: Int = 4) {
        self.width = width
        self.height = height
        self.recentCapacity = max(1, recentCapacity)
        // Kept ones, plus one each sharer may still be encoding after it left the recent list, plus one being written.
        pool = FrameBufferPool(capacity: self.recentCapacity + max(1, sharers) + 1)
        var entries: [Entry] = []
        entries.reserveCapacity(self.recentCapacity)
        recent = Mutex(entries)
    }

    /// `frame`'s picture at this scaler's size, and whether this call scaled it (false: a sibling
    /// already had). Throws when libyuv fails or every pooled buffer is still held.
    public func scaled(_ frame: VideoFrame) throws(MediaError) -> (buffer: I420Buffer, scaledHere: Bool) {
        let source = ObjectIdentifier(frame.buffer)
        let time = frame.captureTimeNanos
        let (width, height, capacity) = (width, height, recentCapacity)
        return try recent.withLock { (entries: inout [Entry]) throws(MediaError) -> (buffer: I420Buffer, scaledHere: Bool) in
            if let hit = entries.first(where: { $0.source == source && $0.captureTimeNanos == time }) {
                return (hit.scaled, false)
            }
            if entries.count == capacity { entries.removeFirst() }
            guard let target = try pool.makeBuffer(width: width, height: height) else {
                throw .poolExhausted(capacity: pool.capacity)
            }
            try frame.buffer.scale(into: target)
            entries.append(Entry(source: source, captureTimeNanos: time, scaled: target))
            return (target, true)
        }
    }
}
