import NIOCore

/// One reassembled H.264 access unit (a coded picture): the NAL units that shared an RTP timestamp.
public struct H264AccessUnit: Sendable, Equatable {
    /// The 90 kHz RTP timestamp of the picture.
    public var rtpTimestamp90k: UInt32
    /// NAL units without start codes, in decoding order.
    public var nalUnits: [ByteBuffer]

    public init(rtpTimestamp90k: UInt32, nalUnits: [ByteBuffer]) {
        self.rtpTimestamp90k = rtpTimestamp90k
        self.nalUnits = nalUnits
    }

    /// Whether a decoder can start here: the unit holds an IDR slice.
    public var isKeyFrame: Bool {
        nalUnits.contains { unit in
            unit.getInteger(at: unit.readerIndex, as: UInt8.self)
                .map { H264NALUnitHeader(byte: $0).type == H264NALUnitHeader.typeIDR } ?? false
        }
    }

    /// The unit as an Annex B byte stream, as libavcodec's decoders take it.
    public func annexB(allocator: ByteBufferAllocator = .init()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: nalUnits.reduce(0) { $0 + H264AnnexB.startCode.count + $1.readableBytes })
        H264AnnexB.write(nalUnits, to: &buffer)
        return buffer
    }
}
