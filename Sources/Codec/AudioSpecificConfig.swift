/// MPEG-4 AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1) for AAC-LC: what RTMP's AAC sequence
/// header and MP4's `esds` carry.
///
/// ```
/// audioObjectType          5 bits  (2 = AAC LC)
/// samplingFrequencyIndex   4 bits  (3 = 48000, 4 = 44100, … Table 1.18)
/// channelConfiguration     4 bits
/// GASpecificConfig: frameLengthFlag 1 (0: 1024), dependsOnCoreCoder 1 (0), extensionFlag 1 (0)
/// ```
public struct AudioSpecificConfig: Sendable, Equatable {
    public static let aacLowComplexity: UInt8 = 2
    static let sampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    public var objectType: UInt8
    public var sampleRate: Int
    public var channels: Int

    public init(objectType: UInt8 = aacLowComplexity, sampleRate: Int, channels: Int) throws(CodecError) {
        guard Self.sampleRates.contains(sampleRate) else {
            throw .invalidSetting(setting: "sample-rate", value: "\(sampleRate)", reason: "not an MPEG-4 audio sampling frequency")
        }
        guard (1...7).contains(channels) else {
            throw .invalidSetting(setting: "channels", value: "\(channels)", reason: "MPEG-4 channel configurations are 1…7")
        }
        self.objectType = objectType
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Parses the two-byte form (no explicit frequency, no extensions).
    public init(bytes: [UInt8]) throws(CodecError) {
        guard bytes.count >= 2 else { throw .truncatedBitstream(structure: "AudioSpecificConfig") }
        let index = Int((bytes[0] & 0x07) << 1 | bytes[1] >> 7)
        guard index < Self.sampleRates.count else {
            throw .malformedBitstream(structure: "AudioSpecificConfig", detail: "sampling frequency index \(index)")
        }
        try self.init(objectType: bytes[0] >> 3, sampleRate: Self.sampleRates[index], channels: Int((bytes[1] >> 3) & 0x0F))
    }

    public var bytes: [UInt8] {
        let index = UInt8(Self.sampleRates.firstIndex(of: sampleRate) ?? 0)
        return [objectType << 3 | index >> 1, (index & 1) << 7 | UInt8(channels) << 3]
    }
}
