import MediaCore

/// The capture time livepush puts in every H.264/H.265 access unit it sends over RTMP, SRT and RTP:
/// a `user_data_unregistered` SEI message (payload type 5) holding our UUID and the frame's
/// wall-clock capture time as a 64-bit NTP timestamp (32.32 seconds since 1900), so a receiver
/// can line up cameras or measure glass-to-glass latency with tools that show SEI (ffprobe
/// `-show_frames`). Byte layout and how to read it: docs/capture-time.md.
///
/// Writing needs no allocation (it appends into the caller's buffer, emulation prevention
/// applied on the fly); parsing rejects anything malformed with nil.
public struct CaptureTimeSEI: Sendable, Equatable {
    /// Our `uuid_iso_iec_11578`: a receiver recognises the message by it.
    public static let uuid: [UInt8] = [0xA0, 0x31, 0x19, 0xB8, 0x5F, 0x6B, 0x48, 0x17, 0xBA, 0x4B, 0xA9, 0x57, 0xC3, 0xAC, 0xF2, 0xBB]
    /// SEI payload type `user_data_unregistered` (H.264 D.1.7, H.265 D.2.7).
    static let userDataUnregistered: UInt8 = 5
    /// The message's payload: the UUID, then the NTP time.
    static let payloadSize = 24
    /// `rbsp_stop_one_bit` and alignment zeros after the last message.
    static let trailingBits: UInt8 = 0x80
    /// The longest NAL unit ``appendNALUnit(for:to:)`` writes: a two-byte header, then type, size,
    /// payload and trailing byte with an emulation-prevention byte for every two of them at worst.
    public static let maximumNALUnitSize = 2 + (3 + payloadSize) * 3 / 2

    /// Capture time, NTP format: seconds since 1900 in the high 32 bits, the binary fraction in the low.
    public var ntpTime: UInt64

    public init(ntpTime: UInt64) { self.ntpTime = ntpTime }

    /// From wall-clock nanoseconds since the Unix epoch (the fraction is floored).
    public init(unixNanos: Int64) { ntpTime = NTPTimestamp(unixNanos: unixNanos).rawValue }

    /// Wall-clock nanoseconds since the Unix epoch, within a nanosecond of what was written.
    public var unixNanos: Int64 { NTPTimestamp(rawValue: ntpTime).unixNanos }

    /// Appends the SEI NAL unit (H.264 type 6, H.265 prefix SEI type 39), without a start code,
    /// emulation prevention applied. AV1 has no NAL units: nothing is appended.
    public func appendNALUnit(for codec: VideoCodec, to out: inout [UInt8]) {
        switch codec {
        case .h264: out.append(H264NALType.sei)
        case .hevc:
            out.append(HEVCNALType.prefixSEI << 1)  // forbidden bit 0, layer 0 (its top bit 0)
            out.append(1)  // rest of layer 0, temporal id 0 (+1)
        case .av1: return
        }
        var zeros = 0
        func emit(_ byte: UInt8) {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        emit(Self.userDataUnregistered)
        emit(UInt8(Self.payloadSize))
        for byte in Self.uuid { emit(byte) }
        for shift in stride(from: 56, through: 0, by: -8) { emit(UInt8(truncatingIfNeeded: ntpTime >> UInt64(shift))) }
        emit(Self.trailingBits)
    }

    /// The capture time in a SEI NAL unit (emulation-prevented, no start code) of `codec`, or nil
    /// when it is not a SEI, holds no message with our UUID, or is malformed.
    public static func parse<C: Collection>(nalUnit: C, codec: VideoCodec) -> CaptureTimeSEI? where C.Element == UInt8 {
        var rbsp = [UInt8]()
        return parse(nalUnit: nalUnit, codec: codec, rbsp: &rbsp)
    }

    /// ``parse(nalUnit:codec:)`` with the unescaped bytes written to `rbsp`, a buffer the caller
    /// keeps from one frame to the next, so reading every frame of a stream allocates nothing.
    public static func parse<C: Collection>(nalUnit: C, codec: VideoCodec, rbsp: inout [UInt8]) -> CaptureTimeSEI? where C.Element == UInt8 {
        BitReader.unescape(nalUnit, into: &rbsp)
        let headerSize: Int
        switch codec {
        case .h264: headerSize = 1
        case .hevc: headerSize = 2
        case .av1: return nil
        }
        guard rbsp.count > headerSize else { return nil }
        let type = codec.nalUnitType(firstByte: rbsp[0])
        guard type == (codec == .h264 ? H264NALType.sei : HEVCNALType.prefixSEI) else { return nil }
        var index = headerSize
        /// A `payloadType` or `payloadSize`: 0xFF bytes each add 255, the last byte ends it.
        func number() -> Int? {
            var value = 0
            while index < rbsp.count {
                let byte = rbsp[index]
                index += 1
                value += Int(byte)
                if byte != 0xFF { return value }
            }
            return nil
        }
        // Messages until the trailing bits: more_rbsp_data() is false once only 0x80 remains.
        while index < rbsp.count, !(index == rbsp.count - 1 && rbsp[index] == trailingBits) {
            guard let payloadType = number(), let size = number(), size <= rbsp.count - index else { return nil }
            let payload = rbsp[index..<(index + size)]
            index += size
            guard payloadType == Int(userDataUnregistered), size >= payloadSize,
                  payload.prefix(uuid.count).elementsEqual(uuid) else { continue }
            let time = payload.dropFirst(uuid.count).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return CaptureTimeSEI(ntpTime: time)
        }
        return nil
    }
}
