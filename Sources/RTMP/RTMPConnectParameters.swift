/// The command object of `connect` (RTMP spec §7.2.1.1), plus the enhanced-RTMP v2 capability fields
/// ("Enhancing NetConnection connect Command").
public struct RTMPConnectParameters: Sendable, Hashable {
    /// Enhanced RTMP `capsEx` bits.
    public struct ExtendedCapabilities: OptionSet, Sendable, Hashable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// We understand `NetConnection.Connect.ReconnectRequest`.
        public static let reconnect = Self(rawValue: 0x01)
        public static let multitrack = Self(rawValue: 0x02)
        public static let modEx = Self(rawValue: 0x04)
        public static let timestampNanoOffset = Self(rawValue: 0x08)
    }

    /// Enhanced RTMP `FourCcInfoMask`: what a side can do with one codec, the values of `videoFourCcInfoMap`.
    public struct FourCCCapabilities: OptionSet, Sendable, Hashable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let canDecode = Self(rawValue: 0x01)
        /// What a publisher announces: it sends this codec.
        public static let canEncode = Self(rawValue: 0x02)
        /// A server that passes the codec on untouched.
        public static let canForward = Self(rawValue: 0x04)
    }

    /// FMLE's string: some ingest servers (older Wowza, some CDNs) only accept publishers that send "FMLE/3.0".
    public static let defaultFlashVersion = "FMLE/3.0 (compatible; livepush)"

    /// Application name, e.g. "live2" or "app/instance", with any query string the URL had after it.
    public var app: String
    /// The URL up to and including the application (`RTMPURL.tcURL`).
    public var tcURL: String
    public var flashVersion: String
    /// Codecs we may send as enhanced-RTMP FourCCs (e.g. "avc1", "hvc1", "av01"); empty leaves the field out.
    public var fourCCList: [FourCC]
    /// Leaves `capsEx` out when empty.
    public var capabilities: ExtendedCapabilities
    /// What we can do with each codec of `fourCCList`, sent as `videoFourCcInfoMap` (v2; multitrack servers
    /// such as Twitch's read it). Empty leaves the map out, as v1 publishers do.
    public var videoFourCCCapabilities: FourCCCapabilities

    public init(
        app: String, tcURL: String, flashVersion: String = Self.defaultFlashVersion,
        fourCCList: [FourCC] = [], capabilities: ExtendedCapabilities = [], videoFourCCCapabilities: FourCCCapabilities = []
    ) {
        self.app = app
        self.tcURL = tcURL
        self.flashVersion = flashVersion
        self.fourCCList = fourCCList
        self.capabilities = capabilities
        self.videoFourCCCapabilities = videoFourCCCapabilities
    }

    public init(
        url: RTMPURL, fourCCList: [FourCC] = [], capabilities: ExtendedCapabilities = [],
        videoFourCCCapabilities: FourCCCapabilities = []
    ) {
        self.init(
            app: url.app, tcURL: url.tcURL, fourCCList: fourCCList, capabilities: capabilities,
            videoFourCCCapabilities: videoFourCCCapabilities)
    }

    /// What a publisher sending several renditions as tracks of one connection announces: multitrack in
    /// `capsEx` (with whatever else `capabilities` holds) and `canEncode` for every codec in `fourCCList`.
    public func announcingMultitrack() -> Self {
        var parameters = self
        parameters.capabilities.insert(.multitrack)
        parameters.videoFourCCCapabilities.insert(.canEncode)
        return parameters
    }

    /// The command object, in the property order FFmpeg and OBS use.
    public var commandObject: AMF0Object {
        var object: AMF0Object = [
            "app": .string(app),
            "type": .string("nonprivate"),
            "flashVer": .string(flashVersion),
            "tcUrl": .string(tcURL),
        ]
        if !fourCCList.isEmpty {
            object.append("fourCcList", .strictArray(fourCCList.map { .string($0.description) }))
        }
        if !fourCCList.isEmpty && !videoFourCCCapabilities.isEmpty {
            let entries = fourCCList.map { AMF0Object.Property($0.description, .number(Double(videoFourCCCapabilities.rawValue))) }
            object.append("videoFourCcInfoMap", .object(AMF0Object(entries)))
        }
        if !capabilities.isEmpty {
            object.append("capsEx", .number(Double(capabilities.rawValue)))
        }
        return object
    }
}
