import NIOCore

/// Why the depacketizer dropped the access unit it was assembling.
public enum H264PacketLoss: Sendable, Equatable {
    /// Packets between `expected` and `received` never arrived.
    case sequenceGap(expected: UInt16, received: UInt16)
    /// An FU-A middle or end fragment arrived without its start fragment.
    case missingFragmentStart
    /// An FU-A start arrived while another fragmented NAL unit was still open.
    case repeatedFragmentStart
    /// A fragmented NAL unit was left open by a non-FU packet, a marker or a new timestamp.
    case incompleteFragment
    /// The access unit outgrew the configured limit (a hostile or broken sender).
    case accessUnitTooLarge(limit: Int)
}

/// What one pushed packet produced.
public enum H264DepacketizerOutput: Sendable, Equatable {
    case accessUnit(H264AccessUnit)
    /// The access unit in progress was dropped; later packets of it are discarded up to its marker.
    case lost(H264PacketLoss)
}

/// Reassembles H.264 access units from RTP packets of packetization mode 1 (RFC 6184): single NAL
/// units, STAP-A (split into slices, no copy) and FU-A (reassembled, one buffer per NAL unit).
///
/// Packets must arrive in sequence order (a jitter buffer reorders before this); a late or duplicate
/// packet is ignored. An access unit is output on the marker bit (RFC 6184 §5.1), or when the
/// timestamp changes without one. Any loss drops the whole access unit rather than hand a decoder a
/// picture with holes; the caller typically answers a `.lost` with a PLI.
/// Memory is bounded by `maxAccessUnitSize`.
public struct H264Depacketizer: Sendable {
    public static let defaultMaxAccessUnitSize = 4 << 20
    static let stapALengthSize = 2

    public let maxAccessUnitSize: Int
    public let allocator: ByteBufferAllocator
    private var expectedSequenceNumber: UInt16?
    private var timestamp: UInt32?
    private var nalUnits: [ByteBuffer] = []
    private var fragment: ByteBuffer?
    private var size = 0
    /// The current access unit is known to be damaged: skip to its marker.
    private var discarding = false

    public init(maxAccessUnitSize: Int = defaultMaxAccessUnitSize, allocator: ByteBufferAllocator = .init()) {
        self.maxAccessUnitSize = maxAccessUnitSize
        self.allocator = allocator
    }

    /// Feeds one packet; returns the access units completed and the losses detected by it (at most two
    /// outputs: a unit closed by a timestamp change, then this packet's own result).
    /// Throws for a malformed payload, after dropping the access unit it belonged to.
    public mutating func push(_ packet: RTPPacket) throws(RTPError) -> [H264DepacketizerOutput] {
        let header = packet.header
        var outputs: [H264DepacketizerOutput] = []
        if let expected = expectedSequenceNumber, header.sequenceNumber != expected {
            guard Int16(bitPattern: header.sequenceNumber &- expected) > 0 else { return [] }
            outputs.append(.lost(.sequenceGap(expected: expected, received: header.sequenceNumber)))
            reset()
            // Lost packets may have been this access unit's first ones.
            discarding = true
        } else if let current = timestamp, current != header.timestamp {
            if let output = closeAccessUnit() { outputs.append(output) }
            discarding = false
        }
        expectedSequenceNumber = header.sequenceNumber &+ 1
        timestamp = header.timestamp

        if !discarding {
            do throws(RTPError) {
                if let loss = try consume(packet.payload) {
                    outputs.append(.lost(loss))
                    reset()
                    discarding = true
                } else if size > maxAccessUnitSize {
                    outputs.append(.lost(.accessUnitTooLarge(limit: maxAccessUnitSize)))
                    reset()
                    discarding = true
                }
            } catch {
                reset()
                discarding = !header.marker
                throw error
            }
        }
        if header.marker {
            if !discarding, let output = closeAccessUnit() { outputs.append(output) }
            reset()
            discarding = false
        }
        return outputs
    }

    /// Adds the payload's NAL units to the access unit; returns a loss instead of adding when the
    /// fragment state does not allow the payload.
    private mutating func consume(_ payload: ByteBuffer) throws(RTPError) -> H264PacketLoss? {
        let whole = payload
        var payload = payload
        let indicator = H264NALUnitHeader(byte: try payload.readRequiredInteger())
        switch indicator.type {
        case 1...23:
            guard fragment == nil else { return .incompleteFragment }
            append(whole)
        case H264NALUnitHeader.typeSTAPA:
            guard fragment == nil else { return .incompleteFragment }
            // Validate all lengths before adding any unit, so a bad packet adds nothing.
            var units: [ByteBuffer] = []
            while payload.readableBytes > 0 {
                let length = Int(try payload.readRequiredInteger(as: UInt16.self))
                guard length > 0 else { throw .invalidLength(field: "STAP-A NAL unit", length: 0) }
                units.append(try payload.readRequiredSlice(length: length))
            }
            guard !units.isEmpty else { throw .invalidLength(field: "STAP-A", length: 0) }
            units.forEach { append($0) }
        case H264NALUnitHeader.typeFUA:
            return try consumeFragment(indicator: indicator, payload: payload)
        default:
            throw .unsupportedNALUnitType(indicator.type)
        }
        return nil
    }

    /// FU-A, RFC 6184 §5.8: rebuilds the NAL header from the indicator's F/NRI and the FU header's type.
    private mutating func consumeFragment(indicator: H264NALUnitHeader, payload: ByteBuffer) throws(RTPError) -> H264PacketLoss? {
        var payload = payload
        let fuHeader: UInt8 = try payload.readRequiredInteger()
        let isStart = fuHeader & H264Payloader.fuStartBit != 0
        let isEnd = fuHeader & H264Payloader.fuEndBit != 0
        guard !(isStart && isEnd) else {
            throw .valueOutOfRange(field: "FU header with S and E", value: Int(fuHeader))
        }
        if isStart {
            guard fragment == nil else { return .repeatedFragmentStart }
            var buffer = allocator.buffer(capacity: 1 + payload.readableBytes)
            buffer.writeInteger(indicator.byte & ~H264NALUnitHeader.typeMask | fuHeader & H264NALUnitHeader.typeMask)
            fragment = buffer
            size += 1
        } else if fragment == nil {
            return .missingFragmentStart
        }
        size += payload.readableBytes
        fragment?.writeImmutableBuffer(payload)
        if isEnd, let complete = fragment {
            nalUnits.append(complete)
            fragment = nil
        }
        return nil
    }

    private mutating func append(_ nalUnit: ByteBuffer) {
        nalUnits.append(nalUnit)
        size += nalUnit.readableBytes
    }

    /// Ends the access unit in progress: the unit if complete, a loss if a fragment is open.
    private mutating func closeAccessUnit() -> H264DepacketizerOutput? {
        defer { reset() }
        if fragment != nil { return .lost(.incompleteFragment) }
        guard let timestamp, !nalUnits.isEmpty else { return nil }
        return .accessUnit(H264AccessUnit(rtpTimestamp90k: timestamp, nalUnits: nalUnits))
    }

    private mutating func reset() {
        nalUnits.removeAll(keepingCapacity: true)
        fragment = nil
        size = 0
    }
}
