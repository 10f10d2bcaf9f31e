/// How to encode video, with the names streamers know from OBS and ffmpeg.
///
/// Defaults suit live streaming to YouTube/Twitch: libx264, veryfast, zerolatency (no B-frames,
/// no lookahead), CBR-like rate control (maxrate = bitrate, a one-second buffer), a keyframe every
/// 2 s with closed GOPs, high profile. For WebRTC pick ``Profile/baseline``: x264 then writes
/// constrained baseline (profile_idc 66 with constraint_set1), which every browser decodes.
public struct VideoEncoderSettings: Sendable, Equatable {
    /// H.264 profiles (HEVC and AV1 encoders use their main profile and ignore this).
    ///
    /// For x264 the profile is a ceiling: it writes the lowest profile its tools need, so
    /// `ultrafast` (no CABAC, no 8x8 transform) yields constrained baseline even when `high` is asked.
    public enum Profile: String, Sendable, CaseIterable {
        /// Constrained baseline with x264 (no B-frames, no CABAC): the WebRTC-safe choice.
        case baseline
        case main
        case high
    }

    /// What to do with a frame whose ``MediaCore/VideoFrame/rotation`` is not `.none`.
    public enum RotationHandling: Sendable, Equatable {
        /// Turn the pixels (libyuv) before encoding: for RTMP and recording, which cannot signal rotation.
        case rotatePhysically
        /// Encode as captured; the output signals rotation (WebRTC's video-orientation extension).
        case passThrough
    }

    /// What to do with a frame whose size differs from ``width`` × ``height`` (a camera switch).
    public enum SizeChangeHandling: Sendable, Equatable {
        /// Scale to the configured size (libyuv): the stream never changes size.
        case scale
        /// Reopen the encoder at the new size, starting with a keyframe.
        case reopen
    }

    /// Who places the keyframes.
    public enum KeyFrameCadence: Sendable, Equatable {
        /// The encoder's own GOP counter, every ``VideoEncoderSettings/keyframeIntervalFrames`` frames (and wherever asked).
        case encoderCounted
        /// Only where asked for (renditions keyed by a ``KeyFrameSchedule`` on capture time, so a frame one
        /// rendition drops cannot shift its keyframes): x264's and x265's counters are set out of reach
        /// (``encoderGOPFrames``). SVT-AV1, which cannot key a frame on request, keeps counting and is reopened
        /// for a requested keyframe its count would not place (``VideoEncoder/encode(_:emit:)``).
        case requested
    }

    /// libavcodec encoder name: `libx264`, `h264_v4l2m2m`, `h264_vaapi`, `h264_nvenc`, `h264_qsv`,
    /// `libopenh264`, `libx265`, `libsvtav1` (``VideoEncoder/availableEncoders()`` lists this machine's).
    public var encoderName: String
    public var width: Int
    public var height: Int
    public var framesPerSecond: Int
    /// Target bitrate (ffmpeg `-b:v`).
    public var bitrateBitsPerSecond: Int
    /// Peak bitrate (ffmpeg `-maxrate`); nil means the target bitrate (CBR-like).
    public var maxBitrateBitsPerSecond: Int?
    /// Rate-control buffer (ffmpeg `-bufsize`); nil means one second of the target bitrate.
    public var bufferSizeBits: Int?
    public var keyframeIntervalSeconds: Double
    /// Encoder speed preset in x264's names (ultrafast … placebo), mapped per encoder family
    /// (SVT-AV1 also takes its own 0…13); hardware encoders ignore it.
    public var preset: String
    /// Encoder tune (x264/x265: zerolatency, film, …); nil for none. Encoders without these tunes ignore it.
    public var tune: String?
    public var profile: Profile
    /// Level as ffmpeg writes it (`3.1`, `4.0`); nil lets the encoder pick.
    public var level: String?
    /// Encoder threads; 0 lets the encoder decide.
    public var threads: Int
    public var rotation: RotationHandling
    public var sizeChange: SizeChangeHandling
    public var keyFrameCadence: KeyFrameCadence = .encoderCounted

    public init(encoderName: String = "libx264", width: Int = 1280, height: Int = 720, framesPerSecond: Int = 30,
                bitrateBitsPerSecond: Int = 2_500_000, maxBitrateBitsPerSecond: Int? = nil, bufferSizeBits: Int? = nil,
                keyframeIntervalSeconds: Double = 2, preset: String = "veryfast", tune: String? = "zerolatency",
                profile: Profile = .high, level: String? = nil, threads: Int = 0,
                rotation: RotationHandling = .rotatePhysically, sizeChange: SizeChangeHandling = .scale) {
        self.encoderName = encoderName
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.bitrateBitsPerSecond = bitrateBitsPerSecond
        self.maxBitrateBitsPerSecond = maxBitrateBitsPerSecond
        self.bufferSizeBits = bufferSizeBits
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
        self.preset = preset
        self.tune = tune
        self.profile = profile
        self.level = level
        self.threads = threads
        self.rotation = rotation
        self.sizeChange = sizeChange
    }

    /// Frames between keyframes (the GOP length).
    public var keyframeIntervalFrames: Int { max(1, Int((keyframeIntervalSeconds * Double(framesPerSecond)).rounded())) }

    /// The GOP length the encoder opens with: the interval, or out of its reach (x264's "infinite",
    /// 1 << 30) when keyframes come only on request and the encoder is x264 or x265. Hardware encoders
    /// keep the interval (their drivers' GOP controls have ranges of their own), SVT-AV1 too (it keys
    /// only by its count).
    var encoderGOPFrames: Int {
        let family = EncoderFamily(encoderName: encoderName)
        return keyFrameCadence == .requested && (family == .x264 || family == .x265) ? 1 << 30 : keyframeIntervalFrames
    }

    public var effectiveMaxBitrate: Int { maxBitrateBitsPerSecond ?? bitrateBitsPerSecond }
    public var effectiveBufferSizeBits: Int { bufferSizeBits ?? bitrateBitsPerSecond }

    /// These settings at another target bitrate (congestion control, the API), with an explicit
    /// `maxrate` and `bufsize` kept in the proportion to the bitrate that `configured` gave them:
    /// a VBV buffer sized for 2.5 Mbit/s would let a 500 kbit/s encode burst five seconds of its
    /// rate into the link that just asked for less. At `configured`'s bitrate they are the user's
    /// own values again. The peak is never below the new bitrate.
    public func at(bitrate bitsPerSecond: Int, proportionedLike configured: VideoEncoderSettings) -> VideoEncoderSettings {
        var updated = self
        let share = Double(bitsPerSecond) / Double(max(1, configured.bitrateBitsPerSecond))
        updated.bitrateBitsPerSecond = bitsPerSecond
        updated.maxBitrateBitsPerSecond = configured.maxBitrateBitsPerSecond.map { max(bitsPerSecond, Int((Double($0) * share).rounded())) }
        updated.bufferSizeBits = configured.bufferSizeBits.map { max(1, Int((Double($0) * share).rounded())) }
        return updated
    }

    /// H.264 Annex A levels as ffmpeg and x264 write them.
    static let h264Levels = ["1", "1b", "1.1", "1.2", "1.3", "2", "2.1", "2.2", "3", "3.1", "3.2", "4", "4.1", "4.2", "5", "5.1", "5.2", "6", "6.1", "6.2"]

    /// Checks the values that do not depend on the machine; the encoder name is checked on open.
    public func validate() throws(CodecError) {
        func invalid(_ setting: String, _ value: Any, _ reason: String) -> CodecError {
            .invalidSetting(setting: setting, value: "\(value)", reason: reason)
        }
        guard (16...8192).contains(width) else { throw invalid("width", width, "must be 16…8192") }
        guard (16...8192).contains(height) else { throw invalid("height", height, "must be 16…8192") }
        guard width % 2 == 0 else { throw invalid("width", width, "yuv420p needs an even width; use \(width + 1) or \(width - 1)") }
        guard height % 2 == 0 else { throw invalid("height", height, "yuv420p needs an even height; use \(height + 1) or \(height - 1)") }
        guard (1...240).contains(framesPerSecond) else { throw invalid("fps", framesPerSecond, "must be 1…240") }
        guard bitrateBitsPerSecond > 0 else { throw invalid("bitrate", bitrateBitsPerSecond, "must be above 0 bits per second (e.g. 2500000)") }
        if let max = maxBitrateBitsPerSecond, max < bitrateBitsPerSecond {
            throw invalid("maxrate", max, "must be at least the bitrate \(bitrateBitsPerSecond)")
        }
        if let buffer = bufferSizeBits, buffer <= 0 { throw invalid("bufsize", buffer, "must be above 0 bits") }
        guard keyframeIntervalSeconds > 0, keyframeIntervalSeconds.isFinite else {
            throw invalid("keyint", keyframeIntervalSeconds, "must be above 0 seconds (2 is what YouTube and Twitch ask for)")
        }
        guard (0...64).contains(threads) else { throw invalid("threads", threads, "must be 0 (auto) … 64") }
        // A typo fails here with the list rather than deep inside libavcodec.
        let family = EncoderFamily(encoderName: encoderName)
        if !preset.isEmpty { _ = try family.presetValue(for: preset) }
        if let tunes = family.tunes, let tune, !tune.split(separator: ",").allSatisfy({ tunes.contains(String($0)) }) {
            throw invalid("tune", tune, "\(encoderName) tunes are \(tunes.joined(separator: ", ")) (comma-separated)")
        }
        if encoderName.contains("264"), let level {
            let normalized = level.hasSuffix(".0") ? String(level.dropLast(2)) : level
            guard Self.h264Levels.contains(normalized) else {
                throw invalid("level", level, "H.264 levels are \(Self.h264Levels.joined(separator: ", "))")
            }
        }
    }
}
