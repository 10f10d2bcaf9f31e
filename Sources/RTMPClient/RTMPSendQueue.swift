/// The bounded queue between the encoder thread and the socket, measured in milliseconds of media,
/// with the drop policy of a live encoder (as OBS does it):
///
/// 1. past `nonReferenceDropNanos` of queued media, non-reference video frames go first: nothing depends on them;
/// 2. past `limitNanos`, the video before the newest queued keyframe goes (the GOP tail); with no keyframe
///    queued, all queued video goes and later video is refused until the next keyframe, so a frame whose
///    reference was dropped is never sent;
/// 3. audio is kept (a gap is audible, a dropped video frame is not) unless audio alone exceeds
///    `audioLimitNanos`, the hard bound that keeps memory bounded when nothing drains.
///
/// Every dropped frame is counted; `keyFrameWanted` tells the owner to ask the encoder for an IDR
/// instead of waiting for the next scheduled one. `takeKeyFrameRequest()` hands out one request at a time,
/// and only while the queue has room for the keyframe: an IDR is the largest frame, and asking for one per
/// refused frame on a link that is still behind would only feed the congestion.
public struct RTMPSendQueue: Sendable {
    public struct Limits: Sendable, Hashable {
        public var limitNanos: Int64
        public var nonReferenceDropNanos: Int64
        public var audioLimitNanos: Int64

        /// `milliseconds` of queued media before GOP drops; non-reference frames go at half of it.
        public init(milliseconds: Int) {
            limitNanos = Int64(max(1, milliseconds)) * 1_000_000
            nonReferenceDropNanos = limitNanos / 2
            audioLimitNanos = max(limitNanos * 4, 10_000_000_000)
        }
    }

    public struct Drops: Sendable, Hashable {
        public var nonReference = 0
        public var reference = 0
        public var key = 0
        public var audio = 0
        public var video: Int { nonReference + reference + key }
    }

    public let limits: Limits
    private var items: [RTMPMediaItem] = []
    private var head = 0
    /// Set after a reference frame was dropped: video is refused until a keyframe.
    public private(set) var waitingForKeyFrame = false
    public private(set) var drops = Drops()
    /// Set when frames were dropped; `takeKeyFrameRequest()` clears it.
    public private(set) var keyFrameWanted = false
    /// A request was handed out and no keyframe has arrived since.
    private var keyFrameRequestOutstanding = false

    public init(limits: Limits) {
        self.limits = limits
    }

    public var count: Int { items.count - head }
    public var isEmpty: Bool { count == 0 }

    /// Media time between the oldest and the newest queued item.
    public var queuedNanos: Int64 {
        guard let first = items[head...].first, let last = items.last else { return 0 }
        return max(0, last.timestampNanos - first.timestampNanos)
    }

    /// Adds an item, then sheds what the limits require.
    public mutating func push(_ item: RTMPMediaItem) {
        if let importance = item.videoImportance {
            if importance == .key {
                // The keyframe heals every earlier loss (if it is shed below, that counts as a new one).
                waitingForKeyFrame = false
                keyFrameWanted = false
                keyFrameRequestOutstanding = false
            } else if waitingForKeyFrame {
                count(droppedVideo: importance)
                return
            }
        }
        items.append(item)
        shed()
    }

    /// Whether the next item `pop()` returns is a video keyframe.
    public var peekIsKeyFrame: Bool {
        head < items.count && items[head].videoImportance == .key
    }

    public mutating func pop() -> RTMPMediaItem? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// A new connection must start at a keyframe: drops queued video before the first queued keyframe
    /// and, with none queued, refuses video until one comes.
    public mutating func restartAtKeyFrame() {
        guard let key = items[head...].firstIndex(where: { $0.videoImportance == .key }) else {
            dropVideo(in: head..<items.count)
            waitingForKeyFrame = true
            keyFrameWanted = true
            return
        }
        dropVideo(in: head..<key)
    }

    /// Returns whether a keyframe should be requested now, and clears the flag when it does: not while an
    /// earlier request is still unanswered, nor while more than half the limit is queued (the keyframe
    /// would be dropped on arrival).
    public mutating func takeKeyFrameRequest() -> Bool {
        guard keyFrameWanted, !keyFrameRequestOutstanding, queuedNanos <= limits.nonReferenceDropNanos else { return false }
        keyFrameWanted = false
        keyFrameRequestOutstanding = true
        return true
    }

    private mutating func shed() {
        if queuedNanos > limits.nonReferenceDropNanos {
            let before = count
            removeAll { item in item.videoImportance == .nonReference }
            drops.nonReference += before - count
        }
        if queuedNanos > limits.limitNanos {
            if let key = items[head...].lastIndex(where: { $0.videoImportance == .key }), key > head {
                dropVideo(in: head..<key)
            }
            // Still too long (the newest keyframe is itself old, or there is none): all video goes.
            if queuedNanos > limits.limitNanos {
                dropVideo(in: head..<items.count)
                waitingForKeyFrame = true
            }
        }
        while queuedNanos > limits.audioLimitNanos, let oldest = pop() {
            if oldest.isVideo { count(droppedVideo: oldest.videoImportance ?? .reference) } else { drops.audio += 1 }
            keyFrameWanted = true
            waitingForKeyFrame = waitingForKeyFrame || oldest.isVideo
        }
    }

    private mutating func dropVideo(in range: Range<Int>) {
        var kept: [RTMPMediaItem] = []
        kept.reserveCapacity(count)
        for index in head..<items.count {
            if range.contains(index), let importance = items[index].videoImportance {
                count(droppedVideo: importance)
            } else {
                kept.append(items[index])
            }
        }
        items = kept
        head = 0
    }

    private mutating func removeAll(where shouldRemove: (RTMPMediaItem) -> Bool) {
        items = items[head...].filter { !shouldRemove($0) }
        head = 0
    }

    private mutating func count(droppedVideo importance: VideoFrameImportance) {
        switch importance {
        case .key: drops.key += 1
        case .reference: drops.reference += 1
        case .nonReference: drops.nonReference += 1
        }
        // Nothing depends on a non-reference frame; any other loss breaks decoding until the next IDR.
        keyFrameWanted = keyFrameWanted || importance != .nonReference
    }
}
