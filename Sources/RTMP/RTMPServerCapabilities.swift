/// What a server announces in its answer to `connect` (enhanced RTMP v2, "Enhancing NetConnection connect
/// Command"): `capsEx` and `videoFourCcInfoMap`, in the properties or the information object.
///
/// A server that announces nothing (nginx-rtmp, FFmpeg's listener) gets the empty value: a publisher must
/// then not send it multitrack, as such servers drop tags they cannot parse without a word.
public struct RTMPServerCapabilities: Sendable, Hashable {
    public var capabilities: RTMPConnectParameters.ExtendedCapabilities
    /// Per codec; the key `*` (any codec) is kept as written.
    public var videoFourCCInfo: [String: RTMPConnectParameters.FourCCCapabilities]

    public init(
        capabilities: RTMPConnectParameters.ExtendedCapabilities = [],
        videoFourCCInfo: [String: RTMPConnectParameters.FourCCCapabilities] = [:]
    ) {
        self.capabilities = capabilities
        self.videoFourCCInfo = videoFourCCInfo
    }

    /// Reads the fields from the properties, else from the information object; values that are not whole
    /// numbers within 32 bits are ignored, not guessed at.
    public init(connectResult properties: AMF0Value, _ information: AMF0Value?) {
        self.init()
        for case let object? in [properties.objectValue, information?.objectValue] {
            if let bits = object["capsEx"]?.numberValue.flatMap(UInt32.init(exactly:)), capabilities.isEmpty {
                capabilities = .init(rawValue: bits)
            }
            if let map = object["videoFourCcInfoMap"]?.objectValue, videoFourCCInfo.isEmpty {
                for property in map.properties {
                    guard let bits = property.value.numberValue.flatMap(UInt32.init(exactly:)) else { continue }
                    videoFourCCInfo[property.key] = .init(rawValue: bits)
                }
            }
        }
    }

    /// Whether the server takes multitrack video: it set the bit in `capsEx`.
    public var supportsMultitrack: Bool { capabilities.contains(.multitrack) }
}
