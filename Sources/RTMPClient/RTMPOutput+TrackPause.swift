import MediaCore

/// A narrow link on a multitrack connection (``RTMPTrackPause``, decided under the shared lock as frames
/// are queued): the event loop brings paused tracks back, and logs and reports each change.
extension RTMPOutput {
    /// What the status says while top tracks are paused; nil while none is.
    static func pausedReason(paused: Int, tracks: [RTMPTrack]) -> String? {
        guard paused > 0 else { return nil }
        let names = tracks.prefix(paused).enumerated().map { "\($0) (\($1.stream.width)x\($1.stream.height))" }
        return "the link cannot carry every track: dropping the top track\(paused > 1 ? "s" : "") \(names.joined(separator: ", ")) until it recovers"
    }

    /// Every check of the link (event loop): a paused track comes back once the queue stayed short,
    /// from its next keyframe (asked of every track's encoder); a change is logged and put in the status.
    func checkPausedTracks() {
        // A connection to a server without multitrack carries track 0 alone: nothing to pause or resume.
        guard configuration.tracks.count > 1, packetizers.count != 1 else { return }
        let now = MonotonicClock.nowNanos()
        let (resumed, paused) = shared.withLock { shared in
            (shared.trackPause.check(queuedNanos: shared.queue.queuedNanos, limitNanos: shared.queue.limits.limitNanos, nowNanos: now),
             shared.trackPause.paused)
        }
        if let resumed {
            // Its frames are queued again from now on: none goes before its own keyframe.
            if resumed < sentParameterSets.count { sentParameterSets[resumed] = nil }
            requestKeyFrame()
        }
        guard paused != reportedPausedTracks else { return }
        let more = paused > reportedPausedTracks
        reportedPausedTracks = paused
        let reason = tracksReason
        shared.withLock { $0.status.stateReason = reason }
        if more {
            logger.warning("\(reason ?? "")", metadata: ["paused": "\(paused)", "tracks": "\(configuration.tracks.count)"])
        } else {
            logger.info("the link carries more again: track \(paused) is back", metadata: ["paused": "\(paused)"])
        }
    }
}
