/// One camera as `livepush devices` lists it: node, card, and everything it can capture.
public struct V4L2DeviceInfo: Sendable, Equatable, Codable {
    /// The node path as found (`/dev/video0`, or a simulated node).
    public var path: String
    /// Position among the cameras found, for `--source camera:INDEX`.
    public var index: Int
    public var capabilities: V4L2Capabilities
    public var formats: [V4L2FormatInfo]

    public init(path: String, index: Int, capabilities: V4L2Capabilities, formats: [V4L2FormatInfo]) {
        self.path = path
        self.index = index
        self.capabilities = capabilities
        self.formats = formats
    }
}
