import CV4L2
import Foundation
import MediaCore

/// A V4L2 camera as a ``FrameSource``: negotiates a mode (``V4L2Negotiation``), streams through
/// memory-mapped buffers (``V4L2BufferQueue``) and converts each one straight from the driver's
/// buffer into a pooled ``I420Buffer`` with libyuv.
///
/// Timestamps are the driver's (CLOCK_MONOTONIC, when the sensor captured the frame), not when
/// livepush read it; sequence-number gaps are reported as drops, as are corrupt MJPEG frames. An
/// unplugged camera (ENODEV/EIO, POLLERR) and one that stops sending frames for
/// ``stallTimeoutSeconds`` raise recoverable errors, so ``ResilientSource`` closes it, shows the
/// no-signal card and re-opens it by the same selector — a /dev/v4l/by-id name finds the camera again even under a new node.
public final class V4L2Source: FrameSource, @unchecked Sendable {
    /// How long without a frame counts as a stalled camera, unless told otherwise.
    public static let defaultStallTimeoutSeconds = 5.0
    /// Longest single poll, so a stop request is honoured promptly.
    static let pollTimeoutMillis: Int32 = 100

    /// What the user selected: a path, stable name, `camera:INDEX` or `camera:NAME`.
    public let selector: String
    public let stallTimeoutSeconds: Double
    /// Control values applied at every open (`v4l2-ctl` names, e.g. `brightness`), so they
    /// survive a re-open after an unplug.
    public let controls: [String: String]
    public var name: String { selector }

    private var device: V4L2Device?
    private var queue: V4L2BufferQueue?
    private var negotiated: V4L2Negotiation?
    /// Row stride of raw formats as the driver set it (may exceed width × bytes per pixel).
    private var bytesPerLine = 0
    private var config = CaptureConfig()
    private var lastFrameNanos: Int64 = 0
    private var expectedSequence: UInt32?
    /// Added to the driver's sequence so frame numbers keep counting across re-opens.
    private var frameNumberBase: UInt64 = 0
    private var lastFrameNumber: UInt64?
    /// A frame held back for one read while its preceding gap is reported as a drop.
    private var pending: SourceOutput?

    public init(selector: String, stallTimeoutSeconds: Double = V4L2Source.defaultStallTimeoutSeconds, controls: [String: String] = [:]) {
        self.selector = selector
        self.stallTimeoutSeconds = stallTimeoutSeconds
        self.controls = controls
    }

    public func open(config: CaptureConfig) throws(CaptureError) -> CaptureFormat {
        close()
        self.config = config
        let device = try V4L2Device(path: V4L2Discovery.resolve(selector))
        do throws(CaptureError) {
            let (negotiation, bytesPerLine) = try negotiate(on: device, config: config)
            queue = try V4L2BufferQueue(device: device)
            self.device = device
            self.negotiated = negotiation
            self.bytesPerLine = bytesPerLine
            lastFrameNanos = MonotonicClock.nowNanos()
            expectedSequence = nil
            if let lastFrameNumber { frameNumberBase = lastFrameNumber + 1 }
            return CaptureFormat(size: negotiation.size, framesPerSecond: negotiation.interval.framesPerSecond,
                                 pixelFormat: negotiation.pixelFormat, notes: negotiation.notes)
        } catch {
            queue = nil
            device.close()
            throw error
        }
    }

    /// Checks the node, applies controls, picks and sets the mode; returns it with the row stride.
    private func negotiate(on device: V4L2Device, config: CaptureConfig) throws(CaptureError) -> (V4L2Negotiation, Int) {
        let capabilities = try device.capabilities()
        guard capabilities.isVideoCapture, capabilities.supportsStreaming else {
            throw .notACaptureDevice(path: selector, card: capabilities.card)
        }
        for (name, value) in controls.sorted(by: { $0.key < $1.key }) { _ = try device.setControl(named: name, to: value) }
        var negotiation = try V4L2Negotiation(offers: device.formats(extraSizes: [config.size] + config.fallbackSizes),
                                              config: config, path: selector)
        let set = try device.setFormat(negotiation.fourcc, size: negotiation.size)
        let setFourCC = V4L2FourCC(rawValue: set.pixelformat), setSize = VideoSize(width: Int(set.width), height: Int(set.height))
        if setFourCC != negotiation.fourcc || setSize != negotiation.size {
            guard let format = setFourCC.pixelFormat else { throw .noSupportedFormat(path: selector, offered: [setFourCC.description]) }
            negotiation.notes.append("driver chose \(setFourCC) \(setSize) instead of \(negotiation.fourcc) \(negotiation.size)")
            negotiation.fourcc = setFourCC
            negotiation.pixelFormat = format
            negotiation.size = setSize
        }
        if let interval = try device.setFrameInterval(negotiation.interval) {
            negotiation.interval = interval
        } else if let interval = try device.frameInterval() {
            negotiation.interval = interval
        }
        return (negotiation, Int(set.bytesperline))
    }

    public func read(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput {
        if let output = pending {
            pending = nil
            return output
        }
        guard let device, let queue, let negotiated else { return .endOfStream }
        var descriptor = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Self.pollTimeoutMillis)
        if ready < 0 {
            let code = errno
            guard code == EINTR else { throw device.error(code, operation: "poll") }
            return .idle
        }
        if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { throw .deviceUnplugged(path: selector) }
        guard ready > 0, let filled = try queue.dequeue() else {
            let silentNanos = MonotonicClock.nowNanos() - lastFrameNanos
            if Double(silentNanos) / 1e9 >= stallTimeoutSeconds { throw .stalled(path: selector, seconds: stallTimeoutSeconds) }
            return .idle
        }
        lastFrameNanos = MonotonicClock.nowNanos()
        let output = convert(filled, format: negotiated, pool: pool)
        try queue.requeue(filled.index)

        let gap = expectedSequence.map { filled.sequence &- $0 } ?? 0
        expectedSequence = filled.sequence &+ 1
        guard gap > 0, gap < UInt32.max / 2 else { return output }
        pending = output
        return .dropped(count: Int(gap))
    }

    /// The buffer's picture as a frame, or a drop when it is damaged, corrupt or every pooled
    /// buffer is still held downstream. (Mirroring is ``ThreadedCapturer``'s job, for every source.)
    private func convert(_ filled: V4L2BufferQueue.Filled, format: V4L2Negotiation, pool: FrameBufferPool) -> SourceOutput {
        guard !filled.isDamaged, !filled.bytes.isEmpty else { return .dropped(count: 1) }
        let picture = RawPicture(bytes: filled.bytes, format: format.pixelFormat, width: format.size.width,
                                 height: format.size.height, bytesPerLine: format.pixelFormat == .mjpeg ? nil : bytesPerLine)
        let frameNumber = frameNumberBase + UInt64(filled.sequence)
        lastFrameNumber = frameNumber
        do throws(MediaError) {
            guard let buffer = try pool.makeBuffer(width: format.size.width, height: format.size.height) else { return .dropped(count: 1) }
            try buffer.convert(from: picture)
            return .frame(VideoFrame(buffer: buffer, rotation: config.rotation,
                                     captureTimeNanos: filled.timestampNanos ?? MonotonicClock.nowNanos(), frameNumber: frameNumber))
        } catch {
            return .dropped(count: 1) // corrupt MJPEG or a truncated raw frame: counted by the capturer
        }
    }

    public func close() {
        queue?.stop()
        queue = nil
        device?.close()
        device = nil
        negotiated = nil
        pending = nil
    }

    /// Unplugged and stalled cameras are re-opened; everything else stops the capturer.
    public func isRecoverable(_ error: CaptureError) -> Bool {
        switch error {
        case .deviceUnplugged, .stalled: return true
        default: return false
        }
    }
}
