import NIOCore

/// H.264 payload format, RFC 6184 packetization-mode=1 (non-interleaved): single NAL unit packets,
/// STAP-A aggregation (§5.7.1) and FU-A fragmentation (§5.8). It knows only NAL units; headers,
/// timestamps and the marker bit are ``RTPPacketizer``'s.
///
/// Layout of one access unit:
/// - NAL units larger than `maxPayloadSize` become FU-A fragments;
/// - runs of consecutive NAL units that fit together become one STAP-A (typically SPS + PPS + SEI
///   before an IDR slice, or the small slices of a multi-slice frame);
/// - a NAL unit that fits but has no small neighbour goes alone.
///
/// Parameter sets: the last SPS and PPS seen are remembered, and an IDR access unit that does not
/// carry them (an encoder with global headers) gets them inserted in front, because a WebRTC
/// receiver can only decode an IDR whose parameter sets arrived in-band.
///
/// Allocation: single NAL unit payloads are slices of the input; all STAP-A and FU-A payloads of one
/// access unit are written into one buffer and handed out as slices of it — one allocation per frame,
/// not per packet.
public struct H264Payloader: RTPPayloader {
    public typealias Frame = [ByteBuffer]
    public static let clock = RTPClock.video90kHz
    public static let defaultMaxPayloadSize = 1200
    /// FU indicator + FU header.
    static let fuHeaderSize = 2
    static let stapAHeaderSize = 1
    static let stapALengthSize = 2
    static let fuStartBit: UInt8 = 0x80
    static let fuEndBit: UInt8 = 0x40
    static let nalHeaderSize = 1

    public let maxPayloadSize: Int
    public let allocator: ByteBufferAllocator
    private var sequenceParameterSet: ByteBuffer?
    private var pictureParameterSet: ByteBuffer?

    /// `maxPayloadSize` must leave room for an FU-A header and one byte, and fit a STAP-A length.
    public init(maxPayloadSize: Int = defaultMaxPayloadSize, allocator: ByteBufferAllocator = .init()) throws(RTPError) {
        guard maxPayloadSize > Self.fuHeaderSize, maxPayloadSize <= Int(UInt16.max) else {
            throw .valueOutOfRange(field: "max payload size", value: maxPayloadSize)
        }
        self.maxPayloadSize = maxPayloadSize
        self.allocator = allocator
    }

    /// Payloads for an access unit given as an Annex B byte stream.
    public mutating func payloads(annexB: ByteBuffer) throws(RTPError) -> [ByteBuffer] {
        try payloads(for: H264AnnexB.split(annexB))
    }

    /// Payloads for the NAL units (without start codes) of one access unit.
    public mutating func payloads(for nalUnits: [ByteBuffer]) throws(RTPError) -> [ByteBuffer] {
        let units = try withParameterSets(nalUnits)
        let pieces = plan(units)
        var scratch = allocator.buffer(capacity: pieces.reduce(0) { $0 + constructedSize(of: $1, in: units) })
        var outputs: [Output] = []
        outputs.reserveCapacity(pieces.count)
        for piece in pieces {
            switch piece {
            case .single(let index):
                outputs.append(.input(units[index]))
            case .aggregate(let range):
                let start = scratch.writerIndex
                writeAggregate(units[range], to: &scratch)
                outputs.append(.scratch(start: start, length: scratch.writerIndex - start))
            case .fragments(let index):
                writeFragments(of: units[index], to: &scratch, outputs: &outputs)
            }
        }
        // Slice only after all writes: a live slice would make the next write copy the whole buffer.
        return outputs.map { output in
            switch output {
            case .input(let buffer): buffer
            case .scratch(let start, let length): scratch.getSlice(at: start, length: length) ?? ByteBuffer()
            }
        }
    }

    private enum Piece {
        case single(Int)
        case aggregate(Range<Int>)
        case fragments(Int)
    }

    private enum Output {
        case input(ByteBuffer)
        case scratch(start: Int, length: Int)
    }

    /// Validates the NAL units, updates the parameter-set cache and inserts cached SPS/PPS before an
    /// IDR that lacks them.
    private mutating func withParameterSets(_ nalUnits: [ByteBuffer]) throws(RTPError) -> [ByteBuffer] {
        var units: [ByteBuffer] = []
        units.reserveCapacity(nalUnits.count + 2)
        var sawSPS = false
        var sawPPS = false
        for nalUnit in nalUnits {
            guard let byte = nalUnit.getInteger(at: nalUnit.readerIndex, as: UInt8.self) else {
                throw .emptyPayload
            }
            switch H264NALUnitHeader(byte: byte).type {
            case H264NALUnitHeader.typeSPS:
                sequenceParameterSet = allocator.buffer(buffer: nalUnit)
                sawSPS = true
            case H264NALUnitHeader.typePPS:
                pictureParameterSet = allocator.buffer(buffer: nalUnit)
                sawPPS = true
            case H264NALUnitHeader.typeIDR:
                if !sawSPS, let sps = sequenceParameterSet {
                    units.append(sps)
                    sawSPS = true
                }
                if !sawPPS, let pps = pictureParameterSet {
                    units.append(pps)
                    sawPPS = true
                }
            default:
                break
            }
            units.append(nalUnit)
        }
        return units
    }

    /// Greedy: fragment what is too big, aggregate consecutive units while the STAP-A fits.
    private func plan(_ units: [ByteBuffer]) -> [Piece] {
        var pieces: [Piece] = []
        var index = 0
        while index < units.count {
            let size = units[index].readableBytes
            guard size <= maxPayloadSize else {
                pieces.append(.fragments(index))
                index += 1
                continue
            }
            var end = index + 1
            var aggregateSize = Self.stapAHeaderSize + Self.stapALengthSize + size
            while end < units.count,
                  aggregateSize + Self.stapALengthSize + units[end].readableBytes <= maxPayloadSize {
                aggregateSize += Self.stapALengthSize + units[end].readableBytes
                end += 1
            }
            pieces.append(end - index > 1 ? .aggregate(index..<end) : .single(index))
            index = end
        }
        return pieces
    }

    private var fragmentCapacity: Int { maxPayloadSize - Self.fuHeaderSize }

    private func constructedSize(of piece: Piece, in units: [ByteBuffer]) -> Int {
        switch piece {
        case .single:
            return 0
        case .aggregate(let range):
            return units[range].reduce(Self.stapAHeaderSize) { $0 + Self.stapALengthSize + $1.readableBytes }
        case .fragments(let index):
            let body = units[index].readableBytes - Self.nalHeaderSize
            let count = (body + fragmentCapacity - 1) / fragmentCapacity
            return body + count * Self.fuHeaderSize
        }
    }

    /// STAP-A, RFC 6184 §5.7.1: F is the OR and NRI the maximum of the aggregated units.
    ///
    ///     |STAP-A NAL HDR | NALU 1 Size | NALU 1 HDR & Data | NALU 2 Size | ...
    private func writeAggregate(_ units: ArraySlice<ByteBuffer>, to buffer: inout ByteBuffer) {
        var forbidden: UInt8 = 0
        var nri: UInt8 = 0
        for unit in units {
            let header = H264NALUnitHeader(byte: unit.getInteger(at: unit.readerIndex) ?? 0)
            forbidden |= header.byte & H264NALUnitHeader.forbiddenBit
            nri = max(nri, header.nriBits)
        }
        buffer.writeInteger(forbidden | nri | H264NALUnitHeader.typeSTAPA)
        for unit in units {
            buffer.writeInteger(UInt16(unit.readableBytes))
            buffer.writeImmutableBuffer(unit)
        }
    }

    /// FU-A, RFC 6184 §5.8: the NAL header is dropped; F and NRI go into the FU indicator, the type
    /// into the FU header with S on the first and E on the last fragment.
    ///
    ///     | FU indicator  |   FU header   |
    ///     |F|NRI|  28     |S|E|R|  Type   |  FU payload ...
    private func writeFragments(of unit: ByteBuffer, to buffer: inout ByteBuffer, outputs: inout [Output]) {
        var body = unit
        let header = H264NALUnitHeader(byte: body.readInteger() ?? 0)
        let indicator = header.byte & (H264NALUnitHeader.forbiddenBit | H264NALUnitHeader.nriMask) | H264NALUnitHeader.typeFUA
        var first = true
        while body.readableBytes > 0 {
            let length = min(fragmentCapacity, body.readableBytes)
            var fuHeader = header.type
            if first { fuHeader |= Self.fuStartBit }
            if length == body.readableBytes { fuHeader |= Self.fuEndBit }
            let start = buffer.writerIndex
            buffer.writeInteger(indicator)
            buffer.writeInteger(fuHeader)
            buffer.writeImmutableBuffer(body.readSlice(length: length) ?? ByteBuffer())
            outputs.append(.scratch(start: start, length: buffer.writerIndex - start))
            first = false
        }
    }
}
