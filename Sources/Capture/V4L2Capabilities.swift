import CV4L2

/// What `VIDIOC_QUERYCAP` says about a node: which driver and card, and whether it captures video.
///
/// A UVC webcam shows up as two nodes (video capture plus metadata) and SoCs expose M2M encoders as
/// video nodes too; ``isVideoCapture`` is how discovery skips the ones that are not cameras.
public struct V4L2Capabilities: Sendable, Equatable, Codable {
    public var driver: String
    public var card: String
    public var busInfo: String
    /// The node's own capability bits (`device_caps` when the driver reports them).
    public var deviceCaps: UInt32

    public init(driver: String, card: String, busInfo: String, deviceCaps: UInt32) {
        self.driver = driver
        self.card = card
        self.busInfo = busInfo
        self.deviceCaps = deviceCaps
    }

    init(_ raw: v4l2_capability) {
        let caps = raw.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? raw.device_caps : raw.capabilities
        self.init(driver: V4L2Text.string(raw.driver), card: V4L2Text.string(raw.card),
                  busInfo: V4L2Text.string(raw.bus_info), deviceCaps: caps)
    }

    /// Single-planar video capture with streaming I/O, and not a memory-to-memory codec.
    public var isVideoCapture: Bool {
        let m2m = UInt32(V4L2_CAP_VIDEO_M2M) | UInt32(V4L2_CAP_VIDEO_M2M_MPLANE)
        return deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 && deviceCaps & m2m == 0
    }

    public var supportsStreaming: Bool { deviceCaps & UInt32(V4L2_CAP_STREAMING) != 0 }
}

/// Reading the fixed-size, NUL-padded character arrays of V4L2 structures (imported as tuples).
enum V4L2Text {
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }
}
