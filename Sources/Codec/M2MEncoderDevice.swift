import CV4L2
import Foundation
import Synchronization

/// The V4L2 memory-to-memory encoder node FFmpeg's `h264_v4l2m2m` opened, so livepush can set its
/// controls while it runs: FFmpeg's wrapper applies the bitrate only at open, so a live bitrate
/// change would otherwise reopen the encoder (and force an IDR) every time.
///
/// How the node is found, and why that is safe: controls of an M2M node belong to the *open file*
/// (each open is its own encoder context in the kernel), so opening the node again by path would
/// set the controls of an idle context, not of FFmpeg's. The file descriptor FFmpeg holds is found
/// instead: the V4L2 M2M descriptors of this process are listed (`/proc/self/fd`, each asked
/// `VIDIOC_QUERYCAP`) before and after `avcodec_open2`, and the one that appeared is FFmpeg's.
/// Every M2M encoder open in livepush goes through ``opening(_:)``, which holds one process-wide
/// lock, so two cameras opening encoders at once cannot take each other's descriptor; capture
/// devices opened meanwhile are not M2M and are never taken. The descriptor is used only while the
/// encoder that owns it is open (FFmpeg closes it in `avcodec_free_context`, after this is dropped).
/// `VIDIOC_QUERYCAP` is a read-only request; on a descriptor that is not V4L2 it fails with ENOTTY.
struct M2MEncoderDevice: Sendable, Equatable {
    /// FFmpeg's descriptor for the node.
    let fileDescriptor: Int32
    /// The node's path as the kernel names the descriptor (`/dev/video11`).
    let path: String

    private static let openLock = Mutex(())

    /// Runs `open` (an `avcodec_open2` of an M2M encoder) holding the process-wide lock, and returns
    /// its result with the M2M node it opened, if exactly one appeared.
    static func opening<Result>(_ open: () -> Result) -> (Result, M2MEncoderDevice?) {
        openLock.withLock { _ in
            let before = Set(m2mDescriptors())
            let result = open()
            let appeared = m2mDescriptors().filter { !before.contains($0) }
            guard appeared.count == 1, let fd = appeared.first else { return (result, nil) }
            return (result, M2MEncoderDevice(fileDescriptor: fd, path: nodePath(of: fd)))
        }
    }

    /// Sets the running encoder's target bitrate (`V4L2_CID_MPEG_VIDEO_BITRATE`); the driver
    /// clamps it to its range (bcm2835-codec: 25 kbit/s … 25 Mbit/s).
    func setBitrate(_ bitsPerSecond: Int) throws(CodecError) {
        try setControl(UInt32(V4L2_CID_MPEG_VIDEO_BITRATE), value: Int32(clamping: bitsPerSecond), name: "bitrate")
    }

    /// Sets the IDR period in frames (`V4L2_CID_MPEG_VIDEO_H264_I_PERIOD`): FFmpeg's wrapper sets
    /// only `GOP_SIZE`, which bcm2835-codec does not have, so without this the Pi keeps its default
    /// of 60 frames whatever keyint says.
    func setKeyFrameInterval(frames: Int) throws(CodecError) {
        try setControl(UInt32(V4L2_CID_MPEG_VIDEO_H264_I_PERIOD), value: Int32(clamping: frames), name: "keyint")
    }

    /// Makes the encoder's next frame an IDR (`V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME`).
    func forceKeyFrame() throws(CodecError) {
        try setControl(UInt32(V4L2_CID_MPEG_VIDEO_FORCE_KEY_FRAME), value: 0, name: "force_key_frame")
    }

    /// Reads a control back (tests, status); nil if the node refuses.
    func control(_ id: UInt32) -> Int32? {
        let (error, value) = extendedControl(lp_VIDIOC_G_EXT_CTRLS(), id: id, value: 0)
        return error == 0 ? value : nil
    }

    private func setControl(_ id: UInt32, value: Int32, name: String) throws(CodecError) {
        let error = extendedControl(lp_VIDIOC_S_EXT_CTRLS(), id: id, value: value).error
        guard error == 0 else {
            throw .invalidSetting(setting: name, value: "\(value)",
                                  reason: "\(path) refused the control (\(String(cString: strerror(error))))")
        }
    }

    /// One control of the codec class through G/S_EXT_CTRLS: the errno (0 on success) and the value.
    private func extendedControl(_ request: UInt, id: UInt32, value: Int32) -> (error: Int32, value: Int32) {
        var control = v4l2_ext_control()
        control.id = id
        control.value = value
        return withUnsafeMutablePointer(to: &control) { pointer in
            var controls = v4l2_ext_controls()
            controls.ctrl_class = UInt32(V4L2_CTRL_CLASS_MPEG)
            controls.count = 1
            controls.controls = pointer
            let ok = lp_v4l2_ioctl(fileDescriptor, request, &controls) == 0
            return (ok ? 0 : errno, pointer.pointee.value)
        }
    }

    /// The descriptors of this process that are V4L2 memory-to-memory devices.
    private static func m2mDescriptors() -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return names.compactMap(Int32.init).filter(isM2M)
    }

    private static func isM2M(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFCHR else { return false }
        var capability = v4l2_capability()
        guard lp_v4l2_ioctl(fd, lp_VIDIOC_QUERYCAP(), &capability) == 0 else { return false }
        let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
        return caps & UInt32(V4L2_CAP_VIDEO_M2M_MPLANE | V4L2_CAP_VIDEO_M2M) != 0
    }

    private static func nodePath(of fd: Int32) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "fd \(fd)"
    }
}
