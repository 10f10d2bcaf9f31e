import CV4L2
import Foundation

/// The memory-mapped streaming buffers of one device: REQBUFS, QUERYBUF + mmap, QBUF all,
/// STREAMON; then DQBUF/QBUF per frame; STREAMOFF and munmap at the end.
///
/// The driver fills buffers in place and the application reads them through the mapping, so a
/// frame is never copied before conversion; each buffer goes back to the driver right after.
final class V4L2BufferQueue {
    /// A filled buffer handed out by ``dequeue()``; give it back with ``requeue(_:)``.
    struct Filled {
        var index: UInt32
        var bytes: UnsafeRawBufferPointer
        var sequence: UInt32
        /// Capture time on CLOCK_MONOTONIC in ns, or nil when the driver's clock is another one.
        var timestampNanos: Int64?
        /// The driver flagged the data as damaged (V4L2_BUF_FLAG_ERROR).
        var isDamaged: Bool
    }

    static let minimumBufferCount: UInt32 = 4
    private let device: V4L2Device
    private var mappings: [UnsafeMutableRawBufferPointer] = []
    private var streaming = false

    /// Allocates and maps at least ``minimumBufferCount`` buffers, queues them all and starts streaming.
    init(device: V4L2Device, count: UInt32 = V4L2BufferQueue.minimumBufferCount) throws(CaptureError) {
        self.device = device
        var request = v4l2_requestbuffers()
        request.count = max(count, Self.minimumBufferCount)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try device.perform(lp_VIDIOC_REQBUFS(), "VIDIOC_REQBUFS", &request)
        guard request.count >= 2 else {
            throw .deviceError(path: device.path, operation: "VIDIOC_REQBUFS", errno: ENOMEM,
                               message: "the driver granted \(request.count) buffers; streaming needs at least 2")
        }
        do throws(CaptureError) {
            for index in 0..<request.count {
                var buffer = Self.buffer(index: index)
                try device.perform(lp_VIDIOC_QUERYBUF(), "VIDIOC_QUERYBUF", &buffer)
                let length = Int(buffer.length)
                let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(buffer.m.offset))
                guard let address, address != MAP_FAILED else {
                    throw device.error(errno, operation: "mmap of buffer \(index)")
                }
                mappings.append(UnsafeMutableRawBufferPointer(start: address, count: length))
            }
            for index in 0..<request.count { try requeue(index) }
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            try device.perform(lp_VIDIOC_STREAMON(), "VIDIOC_STREAMON", &type)
            streaming = true
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    var count: Int { mappings.count }

    /// DQBUF: the oldest filled buffer, or nil when none is ready yet (EAGAIN).
    /// ENODEV and EIO mean the camera went away.
    func dequeue() throws(CaptureError) -> Filled? {
        var buffer = Self.buffer(index: 0)
        let code = device.request(lp_VIDIOC_DQBUF(), &buffer)
        if code == EAGAIN { return nil }
        if code == EIO { throw .deviceUnplugged(path: device.path) }
        guard code == 0 else { throw device.error(code, operation: "VIDIOC_DQBUF") }
        guard Int(buffer.index) < mappings.count else {
            throw .deviceError(path: device.path, operation: "VIDIOC_DQBUF", errno: EINVAL, message: "driver returned unknown buffer \(buffer.index)")
        }
        let mapping = mappings[Int(buffer.index)]
        let used = min(Int(buffer.bytesused), mapping.count)
        let monotonic = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let stamp = Int64(buffer.timestamp.tv_sec) * 1_000_000_000 + Int64(buffer.timestamp.tv_usec) * 1_000
        return Filled(index: buffer.index, bytes: UnsafeRawBufferPointer(rebasing: mapping[..<used]), sequence: buffer.sequence,
                      timestampNanos: monotonic && stamp > 0 ? stamp : nil,
                      isDamaged: buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0)
    }

    /// QBUF: hands a buffer back to the driver to fill again.
    func requeue(_ index: UInt32) throws(CaptureError) {
        var buffer = Self.buffer(index: index)
        try device.perform(lp_VIDIOC_QBUF(), "VIDIOC_QBUF", &buffer)
    }

    /// STREAMOFF, munmap and REQBUFS(0); errors are ignored (the device may be gone). Idempotent.
    func stop() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = device.request(lp_VIDIOC_STREAMOFF(), &type)
            streaming = false
        }
        guard !mappings.isEmpty else { return }
        for mapping in mappings { munmap(mapping.baseAddress, mapping.count) }
        mappings = []
        var release = v4l2_requestbuffers()
        release.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        release.memory = V4L2_MEMORY_MMAP.rawValue
        _ = device.request(lp_VIDIOC_REQBUFS(), &release)
    }

    private static func buffer(index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }
}
