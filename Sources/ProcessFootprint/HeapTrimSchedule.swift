/// When to hand free heap pages back to the system between the releases of ``ReleaseSchedule``,
/// from glibc's count of free heap bytes sampled at a fixed interval.
///
/// Memory freed after start-up stays resident in glibc's arenas until trimmed: the capture pool's
/// buffers that a slow first encode made it grow by (1.4 MB each at 720p, released once idle for
/// 5 s), a viewer's handshake. The free bytes also rise and fall with every frame (a demuxer's
/// packet is freed between frames), so a trim is due only when they rose by more than
/// `growthLimitBytes` over their lowest since the last trim: memory that was in use and no longer is.
/// A trimmed page still counts as free, so the count right after a trim is the new starting point.
struct HeapTrimSchedule {
    let growthLimitBytes: Int
    private var lowest: Int?

    init(growthLimitBytes: Int) {
        self.growthLimitBytes = growthLimitBytes
    }

    /// One sample; true when the free heap should be trimmed now.
    mutating func shouldTrim(freeHeapBytes: Int) -> Bool {
        guard let lowest, freeHeapBytes > lowest + growthLimitBytes else {
            lowest = min(lowest ?? freeHeapBytes, freeHeapBytes)
            return false
        }
        trimmed(freeHeapBytes: freeHeapBytes)
        return true
    }

    /// The heap was trimmed with `freeHeapBytes` free (here or by a full release).
    mutating func trimmed(freeHeapBytes: Int) {
        lowest = freeHeapBytes
    }
}
