/// How a container frames the NAL units of an H.264/H.265 packet: MPEG-TS (SRT, RTP's depacketised
/// access units) carries Annex-B start codes; FLV (RTMP), MP4 and Matroska carry each unit after a
/// big-endian length, whose size the stream's decoder configuration record says.
public enum NALUnitFraming: Sendable, Equatable {
    case annexB
    /// Each NAL unit after a `lengthSize`-byte (1…4) big-endian length.
    case lengthPrefixed(lengthSize: Int)

    /// The framing a demuxer's `extradata` implies: an `avcC`/`hvcC` record (its first byte, the
    /// configuration version, is 1) means length-prefixed with the record's `lengthSizeMinusOne`
    /// (ISO 14496-15 §5.3.3.1, §8.3.3.1); anything else (empty, or Annex-B parameter sets) means Annex B.
    public init(extradata: UnsafeRawBufferPointer, codec: VideoCodec) {
        let lengthByteIndex = codec == .hevc ? 21 : 4
        guard extradata.count > lengthByteIndex, extradata[0] == 1 else {
            self = .annexB
            return
        }
        self = .lengthPrefixed(lengthSize: Int(extradata[lengthByteIndex] & 3) + 1)
    }

    /// Calls `body` with each NAL unit of `packet`, in order, without allocating. A length that runs
    /// past the end stops the walk: a damaged packet yields the units before the damage.
    public func forEachNALUnit(in packet: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        switch self {
        case .annexB:
            AnnexB.forEachNALUnitRange(in: packet) { body(UnsafeRawBufferPointer(rebasing: packet[$0])) }
        case let .lengthPrefixed(lengthSize):
            var offset = 0
            while offset + lengthSize <= packet.count {
                var length = 0
                for index in offset..<(offset + lengthSize) { length = length << 8 | Int(packet[index]) }
                offset += lengthSize
                guard length <= packet.count - offset else { return }
                if length > 0 { body(UnsafeRawBufferPointer(rebasing: packet[offset..<(offset + length)])) }
                offset += length
            }
        }
    }
}
