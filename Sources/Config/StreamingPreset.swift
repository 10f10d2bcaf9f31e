/// Settings a streaming service requires, applied with `preset: youtube` or `preset: twitch` on an
/// RTMP output: the ingest URL (RTMPS where the service offers it), a keyframe at least every
/// 2 s, the H.264 profile, and a bitrate ceiling. Explicit encoder settings that break the
/// service's rules are config errors, not silently changed.
public struct StreamingPreset: Sendable, Equatable {
    public var name: String
    /// Ingest URL without the stream key.
    public var ingestURL: String
    public var maximumKeyframeIntervalSeconds: Double
    public var profile: String
    public var maximumBitrateBitsPerSecond: Int
    /// AAC sample rates the service accepts (an audio track is added when the build has audio).
    public var audioSampleRates: [Int]

    public static let youtube = StreamingPreset(name: "youtube", ingestURL: "rtmps://a.rtmps.youtube.com/live2",
                                                maximumKeyframeIntervalSeconds: 2, profile: "high",
                                                maximumBitrateBitsPerSecond: 51_000_000, audioSampleRates: [44_100, 48_000])
    public static let twitch = StreamingPreset(name: "twitch", ingestURL: "rtmps://live.twitch.tv/app",
                                               maximumKeyframeIntervalSeconds: 2, profile: "high",
                                               maximumBitrateBitsPerSecond: 6_000_000, audioSampleRates: [44_100, 48_000])

    public static let all = [youtube, twitch]

    public static func named(_ name: String) -> StreamingPreset? { all.first { $0.name == name } }
}
