import Foundation
import Logging
import MediaCore

/// A Raspberry Pi CSI camera (`rpicam:N`) through Raspberry Pi's own `rpicam-vid` (or
/// `libcamera-vid` on older images), run as a child process that writes raw I420 frames to a pipe
/// (``RpicamCommand``, layout in ``RpicamFrameLayout``). Each frame is copied out of one reused
/// staging buffer into a pooled ``I420Buffer``, dropping the stride padding.
///
/// Capture timestamps are the read time on the monotonic clock, smoothed against the nominal
/// frame interval (``FrameTimeSmoother``). When the child exits, sends a short frame or no frame
/// for ``stallTimeoutSeconds`` (hung), `read` throws a recoverable error: ``ResilientSource`` then
/// shows the no-signal card and re-opens, and each start within a run of failures waits longer, on
/// the shared backoff (``restartBackoff``: 1 s doubling to 16 s). Its stderr goes to the log at debug.
///
/// rpicam-vid takes a moment to start the camera (and restarts for every control change), so from
/// ``startupCardDelaySeconds`` after a start until its first frame the outputs get the no-signal
/// card at the frame rate rather than nothing.
public final class RpicamSource: FrameSource, @unchecked Sendable {
    /// A child that keeps failing (a camera in use, a bad control value) is not restarted in a tight
    /// loop: rpicam-vid takes a second or more to bring the camera up each time, and floods the log.
    public static let restartBackoff = Backoff(initialDelaySeconds: 1, maximumDelaySeconds: 16)
    public static let startupCardDelaySeconds = 0.5
    /// Linux's F_SETPIPE_SZ: a 1 MiB pipe takes a 720p frame in two reads instead of nineteen.
    static let setPipeSizeCommand: Int32 = 1031
    static let pipeBytes: Int32 = 1 << 20

    public let cameraIndex: Int
    public let stallTimeoutSeconds: Double
    /// Control values (``RpicamControls``) passed at every start.
    public let controls: [String: String]
    public var name: String { "\(SourceSpec.rpicamPrefix)\(cameraIndex)" }
    /// rpicam-vid mirrors (`--hflip`), so the capturer must not mirror again.
    public var mirrorsAtSource: Bool { true }

    private let logger: Logger
    private var child: ChildProcess?
    private var executable = ""
    private var command: RpicamCommand?
    private var layout = RpicamFrameLayout(width: 2, height: 2)
    private var staging = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var filled = 0
    private var smoother = FrameTimeSmoother(framesPerSecond: 30)
    private var frameNumber: UInt64 = 0
    private var lastProgressNanos: Int64 = 0
    private var stderrLine: [UInt8] = []
    private var lastStderrLine = ""
    private var failuresInARow = 0
    private var config = CaptureConfig()
    private var awaitingFirstFrame = true
    private var cards = NoSignalCardClock()
    /// stdout and stderr, reused by every poll (nothing allocated per frame).
    private var pollSet = [pollfd](repeating: pollfd(), count: 2)
    private var earliestRestartNanos: Int64 = 0
    private var random = SystemRandomNumberGenerator()

    public init(cameraIndex: Int, stallTimeoutSeconds: Double = V4L2Source.defaultStallTimeoutSeconds, controls: [String: String] = [:],
                logger: Logger = Logger(label: "livepush.capture.rpicam")) {
        self.cameraIndex = cameraIndex
        self.stallTimeoutSeconds = stallTimeoutSeconds
        self.controls = controls
        self.logger = logger
        stderrLine.reserveCapacity(1024)
    }

    deinit {
        child?.terminate(graceSeconds: 0)
        staging.deallocate()
    }

    public func open(config: CaptureConfig) throws(CaptureError) -> CaptureFormat {
        close()
        guard let executable = RpicamCommand.resolveExecutable() else { throw .rpicamNotInstalled }
        let command = RpicamCommand(cameraIndex: cameraIndex, config: config, controls: controls)
        let arguments = try command.arguments()
        let now = MonotonicClock.nowNanos()
        guard now >= earliestRestartNanos else {
            throw .childProcessFailed(command: name, reason: "failed \(failuresInARow) times in a row, waiting before the next start")
        }
        let layout = RpicamFrameLayout(width: config.size.width, height: config.size.height)
        if layout.frameBytes != staging.count {
            staging.deallocate()
            staging = .allocate(byteCount: layout.frameBytes, alignment: 64)
        }
        self.layout = layout
        self.executable = executable
        self.command = command
        let child = try ChildProcess(executable: executable, arguments: arguments)
        _ = fcntl(child.stdoutFD, Self.setPipeSizeCommand, Self.pipeBytes)
        logger.info("started \(executable)", metadata: ["source": "\(name)", "pid": "\(child.pid)", "arguments": "\(arguments.joined(separator: " "))"])
        self.child = child
        self.config = config
        awaitingFirstFrame = true
        cards.restart(at: now + Int64(Self.startupCardDelaySeconds * 1e9))
        filled = 0
        smoother = FrameTimeSmoother(framesPerSecond: config.framesPerSecond)
        lastProgressNanos = now
        return CaptureFormat(size: config.size, framesPerSecond: config.framesPerSecond, pixelFormat: .i420,
                             notes: executable.hasSuffix("libcamera-vid") ? ["using libcamera-vid (rpicam-vid not found)"] : [])
    }

    public func read(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput {
        guard let child, let command else { return .endOfStream }
        var timeoutNanos = Pacing.maximumSliceNanos
        if awaitingFirstFrame {
            let now = MonotonicClock.nowNanos()
            if let card = try cards.cardIfDue(now: now, pool: pool, config: config, rotation: command.frameRotation) { return card }
            timeoutNanos = min(timeoutNanos, cards.nextCardNanos - now)
        }
        pollSet[0] = pollfd(fd: child.stdoutFD, events: Int16(POLLIN), revents: 0)
        pollSet[1] = pollfd(fd: child.stderrFD, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pollSet, 2, Int32(max(1, timeoutNanos / 1_000_000)))
        if ready > 0, pollSet[1].revents != 0 { drainStderr(child) }
        if ready > 0, pollSet[0].revents != 0 {
            switch readFrameBytes(child) {
            case .complete:
                filled = 0
                lastProgressNanos = MonotonicClock.nowNanos()
                failuresInARow = 0
                awaitingFirstFrame = false
                return deliver(pool: pool, rotation: command.frameRotation)
            case .partial:
                break
            case .endOfFile:
                drainStderr(child)
                throw fail(filled > 0 ? "sent a short frame (\(filled) of \(layout.frameBytes) bytes) and exited" : "exited")
            }
        }
        if Double(MonotonicClock.nowNanos() - lastProgressNanos) / 1e9 >= stallTimeoutSeconds {
            throw fail("sent no frame for \(stallTimeoutSeconds) s (hung)")
        }
        return .idle
    }

    private enum ReadResult { case complete, partial, endOfFile }

    /// Reads what the pipe holds into the staging buffer, up to the end of the current frame.
    private func readFrameBytes(_ child: ChildProcess) -> ReadResult {
        guard let base = staging.baseAddress else { return .partial }
        while filled < layout.frameBytes {
            let count = Glibc.read(child.stdoutFD, base + filled, layout.frameBytes - filled)
            if count > 0 { filled += count; continue }
            if count == 0 { return .endOfFile }
            return .partial // EAGAIN (nothing more yet) or EINTR
        }
        return .complete
    }

    private func deliver(pool: FrameBufferPool, rotation: VideoRotation) -> SourceOutput {
        let captureTime = smoother.timestamp(readAtNanos: MonotonicClock.nowNanos())
        defer { frameNumber += 1 }
        let picture = RawPicture(bytes: UnsafeRawBufferPointer(staging), format: .i420, width: layout.width, height: layout.height,
                                 bytesPerLine: layout.lumaStride)
        do throws(MediaError) {
            guard let buffer = try pool.makeBuffer(width: layout.width, height: layout.height) else { return .dropped(count: 1) }
            try buffer.convert(from: picture)
            return .frame(VideoFrame(buffer: buffer, rotation: rotation, captureTimeNanos: captureTime, frameNumber: frameNumber))
        } catch {
            return .dropped(count: 1)
        }
    }

    /// Ends the child and returns the error to throw; the next start waits the backoff's next step.
    private func fail(_ what: String) -> CaptureError {
        let status = child.map { child -> String in
            child.terminate(graceSeconds: 0.5)
            return child.exitStatusIfExited().map(ChildProcess.describe(status:)) ?? "killed"
        } ?? "not running"
        child = nil
        failuresInARow += 1
        let delay = Self.restartBackoff.delaySeconds(beforeAttempt: failuresInARow, random: &random)
        earliestRestartNanos = MonotonicClock.nowNanos() + Int64(delay * 1e9)
        let detail = lastStderrLine.isEmpty ? "" : "; its last message: \(lastStderrLine)"
        return .childProcessFailed(command: "\(executable) (\(name))", reason: "\(what), \(status)\(detail)")
    }

    /// Logs complete stderr lines at debug, keeping the last one for the error message.
    private func drainStderr(_ child: ChildProcess) {
        var chunk = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while true {
            let count = withUnsafeMutableBytes(of: &chunk) { Glibc.read(child.stderrFD, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            withUnsafeBytes(of: &chunk) { bytes in
                for byte in bytes.prefix(count) {
                    if byte == UInt8(ascii: "\n") {
                        lastStderrLine = String(decoding: stderrLine, as: UTF8.self)
                        logger.debug("\(lastStderrLine)", metadata: ["source": "\(name)"])
                        stderrLine.removeAll(keepingCapacity: true)
                    } else if stderrLine.count < 1024 {
                        stderrLine.append(byte)
                    }
                }
            }
        }
    }

    public func close() {
        child?.terminate()
        child = nil
        filled = 0
        stderrLine.removeAll(keepingCapacity: true)
    }

    /// A child that exited, hung or sent a short frame is restarted; a bad setting or a missing
    /// rpicam-vid is not (restarting would not help).
    public func isRecoverable(_ error: CaptureError) -> Bool {
        if case .childProcessFailed = error { return true }
        return false
    }
}
