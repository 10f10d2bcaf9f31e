import NIOCore

extension FLVVideoTag {
    public var encodedSize: Int {
        let header: Int
        switch codec {
        case .avc: header = isRaw ? 1 : 5
        case .legacy: header = 1
        case .fourCC(let fourCC): header = 5 + (trackID == nil ? 0 : 2) + (writesCompositionTime(fourCC) ? 3 : 0)
        }
        return header + (data?.readableBytes ?? 0)
    }

    /// Writes the tag body; a `trackID` on a FourCC codec makes it a multitrack (OneTrack) tag. A composition time offset on `av01`/`vp09` coded frames cannot be expressed
    /// (their CodedFrames has no CTS field) and is dropped, as those codecs have no B-frame reordering in RTMP.
    public func write(to buffer: inout ByteBuffer) {
        let frameBits = frameType.rawValue << Self.frameTypeShift
        switch codec {
        case .avc:
            buffer.writeInteger(frameBits | FLVVideoCodec.avcCodecID)
            if !isRaw {
                buffer.writeInteger(avcPacketType)
                buffer.write24Int(compositionTimeOffset)
            }
        case .legacy(let codecID):
            buffer.writeInteger(frameBits | (codecID & Self.codecIDMask))
        case .fourCC(let fourCC):
            if let trackID {
                buffer.writeInteger(Self.exHeaderBit | frameBits | ExPacketType.multitrack)
                buffer.writeInteger(MultitrackType.oneTrack << MultitrackType.shift | enhancedPacketType(fourCC))
                buffer.writeInteger(fourCC.rawValue)
                buffer.writeInteger(trackID)
            } else {
                buffer.writeInteger(Self.exHeaderBit | frameBits | enhancedPacketType(fourCC))
                buffer.writeInteger(fourCC.rawValue)
            }
            if writesCompositionTime(fourCC) {
                buffer.write24Int(compositionTimeOffset)
            }
        }
        if let data {
            buffer.writeImmutableBuffer(data)
        }
    }

    private var data: ByteBuffer? {
        switch packet {
        case .sequenceStart(let data), .codedFrames(_, let data), .unknown(_, let data), .raw(let data): return data
        case .sequenceEnd: return nil
        }
    }

    /// Command frames and legacy codecs: nothing but the first byte before the data.
    private var isRaw: Bool {
        if case .raw = packet { return true }
        return false
    }

    private var compositionTimeOffset: Int32 {
        if case .codedFrames(let offset, _) = packet { return offset }
        return 0
    }

    private var avcPacketType: UInt8 {
        switch packet {
        case .sequenceStart: return AVCPacketType.sequenceHeader
        case .sequenceEnd: return AVCPacketType.endOfSequence
        case .unknown(let packetType, _): return packetType
        case .codedFrames, .raw: return AVCPacketType.nalu
        }
    }

    private func enhancedPacketType(_ fourCC: FourCC) -> UInt8 {
        switch packet {
        case .sequenceStart: return ExPacketType.sequenceStart
        case .sequenceEnd: return ExPacketType.sequenceEnd
        case .unknown(let packetType, _): return packetType & Self.exPacketTypeMask
        case .codedFrames, .raw:
            return writesCompositionTime(fourCC) || !Self.hasCompositionTime(fourCC)
                ? ExPacketType.codedFrames : ExPacketType.codedFramesX
        }
    }

    /// CodedFrames with a CTS field: avc1/hvc1 with a non-zero offset (zero goes as CodedFramesX).
    private func writesCompositionTime(_ fourCC: FourCC) -> Bool {
        guard Self.hasCompositionTime(fourCC), case .codedFrames(let offset, _) = packet else { return false }
        return offset != 0
    }
}
