#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanosecond time on CLOCK_MONOTONIC: the clock of every capture timestamp in livepush
/// (V4L2 stamps buffers on it too), so audio, video and network timing line up.
public enum MonotonicClock {
    public static func nowNanos() -> Int64 { read(CLOCK_MONOTONIC) }

    /// Wall-clock (CLOCK_REALTIME) nanoseconds since the Unix epoch.
    public static func wallClockNowNanos() -> Int64 { read(CLOCK_REALTIME) }

    private static func read(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// Maps monotonic capture timestamps to wall-clock time, sampled once so the mapping never jumps
/// while streaming (RTCP sender reports and the frame code's wall-clock field need it).
public struct WallClockMapping: Sendable, Equatable {
    /// Wall-clock nanoseconds minus monotonic nanoseconds at the moment of sampling.
    public let offsetNanos: Int64

    public init(offsetNanos: Int64) { self.offsetNanos = offsetNanos }

    /// Samples both clocks now.
    public static func sampleNow() -> WallClockMapping {
        let before = MonotonicClock.nowNanos()
        let wall = MonotonicClock.wallClockNowNanos()
        let after = MonotonicClock.nowNanos()
        return WallClockMapping(offsetNanos: wall - (before + (after - before) / 2))
    }

    public func wallClockNanos(forMonotonic monotonicNanos: Int64) -> Int64 { monotonicNanos + offsetNanos }
}
