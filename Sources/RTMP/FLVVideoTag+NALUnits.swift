import NIOCore

/// AVC/HEVC coded frames in FLV carry NAL units in "AVCC" form: each prefixed by its length
/// (ISO 14496-15 §5.3.4.2), 4 bytes as every RTMP encoder configures `lengthSizeMinusOne = 3`.
extension FLVVideoPacket {
    /// Size of the big-endian length before each NAL unit.
    public static let nalUnitLengthSize = 4

    /// Coded frames built from bare NAL units (no start codes), each given its 4-byte length prefix.
    public static func codedFrames(compositionTimeOffset: Int32, nalUnits: [ByteBuffer]) -> FLVVideoPacket {
        var data = ByteBuffer()
        data.reserveCapacity(nalUnits.reduce(0) { $0 + nalUnitLengthSize + $1.readableBytes })
        for unit in nalUnits {
            data.writeInteger(UInt32(truncatingIfNeeded: unit.readableBytes))
            data.writeImmutableBuffer(unit)
        }
        return .codedFrames(compositionTimeOffset: compositionTimeOffset, data: data)
    }

    /// Splits length-prefixed data back into NAL units (slices, no copies).
    public static func nalUnits(in data: ByteBuffer) throws(RTMPError) -> [ByteBuffer] {
        var data = data
        var units: [ByteBuffer] = []
        while data.readableBytes > 0 {
            let length: UInt32 = try data.readRequiredInteger("NAL unit length")
            units.append(try data.readRequiredSlice(length: Int(length), "NAL unit"))
        }
        return units
    }
}
