import NIOCore

/// Stream metadata as publishers send it: an AMF0 data message
/// `"@setDataFrame", "onMetaData", ECMA array` (FLV spec v10.1 §E.5). The server strips
/// `@setDataFrame` and hands `onMetaData` to players; `init(from:)` accepts both forms.
///
/// YouTube and Twitch read width/height/framerate and the codec ids to label and check the stream.
public struct FLVMetadata: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.dataAMF0
    static let setDataFrame = "@setDataFrame"
    static let onMetaData = "onMetaData"

    /// `videocodecid` for legacy AVC; enhanced RTMP uses the FourCC's numeric value (`videoCodecID(_:)`).
    public static let avcVideoCodecID: Double = 7
    /// `audiocodecid` for AAC.
    public static let aacAudioCodecID: Double = 10

    public static func videoCodecID(_ fourCC: FourCC) -> Double { Double(fourCC.rawValue) }

    public var width: Double?
    public var height: Double?
    public var frameRate: Double?
    /// Kilobits per second.
    public var videoDataRate: Double?
    public var videoCodecID: Double?
    /// Kilobits per second.
    public var audioDataRate: Double?
    /// Hertz.
    public var audioSampleRate: Double?
    /// Bits per sample.
    public var audioSampleSize: Double?
    public var isStereo: Bool?
    public var audioCodecID: Double?
    public var encoder: String?
    /// Enhanced RTMP v2 multitrack: the properties of each video track other than the default one
    /// (track 0, whose properties are the ones above), sent as `videoTrackIdInfoMap` keyed by track id.
    public var videoTracks: [UInt8: VideoTrack] = [:]

    /// One track's entry in `videoTrackIdInfoMap`.
    public struct VideoTrack: Sendable, Hashable {
        public var width: Double?
        public var height: Double?
        public var frameRate: Double?
        /// Kilobits per second.
        public var videoDataRate: Double?
        public var videoCodecID: Double?

        public init(width: Double? = nil, height: Double? = nil, frameRate: Double? = nil, videoDataRate: Double? = nil, videoCodecID: Double? = nil) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.videoDataRate = videoDataRate
            self.videoCodecID = videoCodecID
        }

        init(_ object: AMF0Object) {
            self.init(width: object["width"]?.numberValue, height: object["height"]?.numberValue, frameRate: object["framerate"]?.numberValue,
                      videoDataRate: object["videodatarate"]?.numberValue, videoCodecID: object["videocodecid"]?.numberValue)
        }

        /// The video properties as onMetaData names them, in FFmpeg's order.
        var numbers: [(String, Double?)] {
            [("width", width), ("height", height), ("framerate", frameRate), ("videodatarate", videoDataRate), ("videocodecid", videoCodecID)]
        }
    }

    public init(
        width: Double? = nil, height: Double? = nil, frameRate: Double? = nil, videoDataRate: Double? = nil,
        videoCodecID: Double? = nil, audioDataRate: Double? = nil, audioSampleRate: Double? = nil,
        audioSampleSize: Double? = nil, isStereo: Bool? = nil, audioCodecID: Double? = nil, encoder: String? = nil
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.videoDataRate = videoDataRate
        self.videoCodecID = videoCodecID
        self.audioDataRate = audioDataRate
        self.audioSampleRate = audioSampleRate
        self.audioSampleSize = audioSampleSize
        self.isStereo = isStereo
        self.audioCodecID = audioCodecID
        self.encoder = encoder
    }

    /// The ECMA array, in FFmpeg's property order; absent fields are left out.
    public var properties: AMF0Object {
        let video = VideoTrack(width: width, height: height, frameRate: frameRate, videoDataRate: videoDataRate, videoCodecID: videoCodecID)
        let numbers = video.numbers + [("audiodatarate", audioDataRate), ("audiosamplerate", audioSampleRate), ("audiosamplesize", audioSampleSize)]
        var object = Self.object(numbers)
        if let isStereo {
            object.append("stereo", .boolean(isStereo))
        }
        if let audioCodecID {
            object.append("audiocodecid", .number(audioCodecID))
        }
        if let encoder {
            object.append("encoder", .string(encoder))
        }
        if !videoTracks.isEmpty {
            let tracks = videoTracks.sorted { $0.key < $1.key }.map { AMF0Object.Property(String($0.key), .object(Self.object($0.value.numbers))) }
            object.append("videoTrackIdInfoMap", .object(AMF0Object(tracks)))
        }
        return object
    }

    private static func object(_ numbers: [(String, Double?)]) -> AMF0Object {
        AMF0Object(numbers.compactMap { key, value in value.map { AMF0Object.Property(key, .number($0)) } })
    }

    private var values: [AMF0Value] {
        [.string(Self.setDataFrame), .string(Self.onMetaData), .ecmaArray(properties)]
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        var copy = buffer
        var name = try AMF0Value(from: &copy)
        if name.stringValue == Self.setDataFrame {
            name = try AMF0Value(from: &copy)
        }
        guard name.stringValue == Self.onMetaData else {
            throw .invalidMessage(type: Self.messageType.rawValue, reason: "data message is not onMetaData")
        }
        guard let object = try AMF0Value(from: &copy).objectValue else {
            throw .invalidMessage(type: Self.messageType.rawValue, reason: "onMetaData without an object")
        }
        func number(_ key: String) -> Double? { object[key]?.numberValue }
        width = number("width")
        height = number("height")
        frameRate = number("framerate")
        videoDataRate = number("videodatarate")
        videoCodecID = number("videocodecid")
        audioDataRate = number("audiodatarate")
        audioSampleRate = number("audiosamplerate")
        audioSampleSize = number("audiosamplesize")
        if case .boolean(let value) = object["stereo"] {
            isStereo = value
        }
        audioCodecID = number("audiocodecid")
        encoder = object["encoder"]?.stringValue
        for track in object["videoTrackIdInfoMap"]?.objectValue?.properties ?? [] {
            guard let id = UInt8(track.key), let properties = track.value.objectValue else { continue }
            videoTracks[id] = VideoTrack(properties)
        }
        buffer = copy
    }

    public var encodedSize: Int {
        values.reduce(0) { $0 + $1.encodedSize }
    }

    public func write(to buffer: inout ByteBuffer) {
        AMF0Value.write(values, to: &buffer)
    }
}
