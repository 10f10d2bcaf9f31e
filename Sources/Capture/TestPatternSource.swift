import Foundation
import MediaCore

/// A moving test card paced on the monotonic clock: scrolling colour bars, a bouncing box, and the
/// burned-in ``FrameCode`` (frame number and capture time) in the top rows, so every later stage
/// can be checked for loss, order and latency without a camera. The busy variant adds fresh grain
/// every frame (``TestPatternNoise``), so an encoder spends its whole bitrate, as on a real camera.
/// `driftPPM` simulates a sensor whose clock is off (+1000: frames come 0.1 % faster than the
/// configured rate); each frame is still stamped with the monotonic instant it is due, as V4L2
/// stamps a real camera's buffers, so the drift shows as a frame rate, not as a clock skew.
public final class TestPatternSource: FrameSource, @unchecked Sendable {
    public let name: String
    private let busy: Bool
    private var noise: TestPatternNoise?
    private var size = VideoSize(width: 1280, height: 720)
    private var frameIntervalNanos: Int64 = 33_333_333
    private var startNanos: Int64 = 0
    private var frameNumber: UInt64 = 0
    private let wallClock = WallClockMapping.sampleNow()
    private var rotation = VideoRotation.none
    private let driftPPM: Double

    public init(busy: Bool = false, driftPPM: Double = 0) {
        self.busy = busy
        self.driftPPM = driftPPM
        name = busy ? "testpattern:busy" : "testpattern"
    }

    public func open(config: CaptureConfig) throws(CaptureError) -> CaptureFormat {
        guard config.size.width >= FrameCode.minimumWidth, config.size.height >= FrameCode.bandHeight(forWidth: config.size.width) * 2 else {
            throw .invalidSetting(name: "size", value: "\(config.size)",
                                  hint: "the test pattern needs at least \(FrameCode.minimumWidth) pixels of width for its frame code")
        }
        size = config.size
        rotation = config.rotation
        frameIntervalNanos = Int64((1_000_000_000 / config.framesPerSecond / (1 + driftPPM / 1e6)).rounded())
        startNanos = MonotonicClock.nowNanos()
        frameNumber = 0
        noise = busy ? TestPatternNoise(width: size.width) : nil
        return CaptureFormat(size: size, framesPerSecond: config.framesPerSecond, pixelFormat: .i420)
    }

    /// Frames come at their scheduled instants, like a sensor's clock: the capture time is the slot's
    /// time, and when the thread wakes more than a frame late (a loaded machine) the missed slots
    /// are skipped and reported as dropped rather than delivered in a burst.
    public func read(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput {
        let due = startNanos + Int64(frameNumber) * frameIntervalNanos
        guard Pacing.sleep(until: due) else { return .idle }
        let late = Int((MonotonicClock.nowNanos() - due) / frameIntervalNanos)
        if late > 0 {
            frameNumber += UInt64(late)
            return .dropped(count: late)
        }
        defer { frameNumber += 1 }
        let buffer: I420Buffer?
        do { buffer = try pool.makeBuffer(width: size.width, height: size.height) } catch { throw .media(error) }
        guard let buffer else { return .dropped(count: 1) }
        Self.draw(frameNumber: frameNumber, into: buffer)
        // The grain stays clear of the frame code's band and a band below it, so the code reads back.
        noise?.apply(to: buffer, frameNumber: frameNumber, firstRow: min(size.height, FrameCode.bandHeight(forWidth: size.width) * 2))
        let code = FrameCode(frameNumber: UInt32(truncatingIfNeeded: frameNumber), captureTimeNanos: UInt64(due),
                             wallClockMillis: UInt64(wallClock.wallClockNanos(forMonotonic: due) / 1_000_000))
        do { try code.burn(into: buffer) } catch { throw .media(error) }
        return .frame(VideoFrame(buffer: buffer, rotation: rotation, captureTimeNanos: due, frameNumber: frameNumber))
    }

    public func close() {}

    /// Scrolling bars plus a box bouncing across the lower half; content changes every frame so
    /// encoders do real work.
    static func draw(frameNumber: UInt64, into buffer: I420Buffer) {
        let bars = YUVColor.colorBars
        let barWidth = max(2, buffer.width / bars.count / 2 * 2)
        buffer.fillRect(x: barWidth * bars.count, y: 0, width: buffer.width, height: buffer.height, color: .black)
        let scroll = Int(frameNumber * 4 % UInt64(buffer.width)) / 2 * 2
        for (index, color) in bars.enumerated() {
            let x = (index * barWidth + scroll) % (barWidth * bars.count)
            buffer.fillRect(x: x, y: 0, width: barWidth, height: buffer.height, color: color)
            buffer.fillRect(x: x - barWidth * bars.count, y: 0, width: barWidth, height: buffer.height, color: color)
        }
        let box = max(8, buffer.height / 6) / 2 * 2
        let travel = max(1, buffer.width - box)
        let position = Int(frameNumber * 8 % UInt64(2 * travel))
        let boxX = (position < travel ? position : 2 * travel - position) / 2 * 2
        buffer.fillRect(x: boxX, y: buffer.height - box * 2, width: box, height: box, color: .white)
    }
}

/// Sleeping on CLOCK_MONOTONIC in slices, so a paced source stays responsive to stop requests.
enum Pacing {
    static let maximumSliceNanos: Int64 = 100_000_000

    /// Sleeps toward `deadline`; returns true once it has passed, false after one slice.
    static func sleep(until deadline: Int64) -> Bool {
        let now = MonotonicClock.nowNanos()
        guard deadline > now else { return true }
        let slice = min(deadline - now, maximumSliceNanos)
        var request = timespec(tv_sec: Int(slice / 1_000_000_000), tv_nsec: Int(slice % 1_000_000_000))
        nanosleep(&request, nil)
        return MonotonicClock.nowNanos() >= deadline
    }
}
