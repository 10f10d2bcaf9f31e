import NIOCore

/// Transport-wide congestion control feedback, draft-holmer-rmcat-transport-wide-cc-extensions-01
/// §3.1 (RTPFB, FMT=15): for each transport-wide sequence number from `baseSequenceNumber`, whether
/// the packet arrived and when. The sender's bandwidth estimator (GCC) feeds on these.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=15 |    PT=205     |           length              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     SSRC of packet sender                     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                      SSRC of media source                     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |      base sequence number     |      packet status count      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                 reference time                | fb pkt. count |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |          packet chunk         |         packet chunk          |
///     :                              ...                              :
///     |         packet chunk          |  recv delta   |  recv delta   |
///     :                              ...                              :
///     |           recv delta          |  recv delta   | zero padding  |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Reference time is signed 24-bit in 64 ms units; receive deltas count 250 µs, one unsigned byte
/// for "small" and a signed 16-bit word for "large or negative" packets.
public struct TransportWideCCFeedback: Sendable, Equatable {
    /// Header, two SSRCs, base seq, status count, reference time, fb pkt count.
    static let fixedSize = 20
    static let chunkSize = 2
    public static let referenceTimeUnitMicros: Int64 = 64_000
    public static let deltaUnitMicros: Int64 = 250

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var baseSequenceNumber: UInt16
    public private(set) var packetStatusCount: UInt16
    /// Signed 24-bit, in 64 ms units.
    public private(set) var referenceTime: Int32
    /// Counts feedback packets, so the sender can tell lost feedback from no traffic.
    public var feedbackPacketCount: UInt8
    public private(set) var chunks: [TransportWideCCChunk]
    /// One per received packet (status small or large delta), in sequence order.
    public private(set) var receiveDeltas: [TransportWideCCReceiveDelta]

    /// Checks that the chunks describe at least `packetStatusCount` packets and that the deltas
    /// match the received ones among them, kind for kind.
    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, packetStatusCount: UInt16,
        referenceTime: Int32, feedbackPacketCount: UInt8, chunks: [TransportWideCCChunk],
        receiveDeltas: [TransportWideCCReceiveDelta]
    ) throws(RTPError) {
        guard (-0x80_0000...0x7F_FFFF).contains(referenceTime) else {
            throw .valueOutOfRange(field: "TWCC reference time", value: Int(referenceTime))
        }
        guard chunks.allSatisfy(\.isWellFormed) else {
            throw .invalidLength(field: "TWCC status vector", length: chunks.count)
        }
        let statuses = Self.statuses(of: chunks, count: Int(packetStatusCount))
        guard statuses.count == Int(packetStatusCount) else {
            throw .invalidLength(field: "TWCC packet chunks", length: statuses.count)
        }
        let expected = statuses.filter(\.hasDelta)
        guard expected.count == receiveDeltas.count,
              zip(expected, receiveDeltas).allSatisfy({ $0.0 == $0.1.status }) else {
            throw .invalidLength(field: "TWCC receive deltas", length: receiveDeltas.count)
        }
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.chunks = chunks
        self.receiveDeltas = receiveDeltas
        guard encodedSize <= RTCPHeader.maxPacketSize else {
            throw .invalidLength(field: "TWCC packet", length: encodedSize)
        }
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var (header, fci, packet) = try RTCPFeedbackHeader.read(
            from: &buffer, packetType: RTCPPacketType.transportFeedback, format: RTCPFeedbackFormat.transportWideCC
        )
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        baseSequenceNumber = try fci.readRequiredInteger()
        packetStatusCount = try fci.readRequiredInteger()
        referenceTime = try fci.readInt24()
        feedbackPacketCount = try fci.readRequiredInteger()
        chunks = []
        var described = 0
        while described < Int(packetStatusCount) {
            let chunk = TransportWideCCChunk(word: try fci.readRequiredInteger())
            described += chunk.packetCount
            chunks.append(chunk)
        }
        receiveDeltas = []
        for status in Self.statuses(of: chunks, count: Int(packetStatusCount)) where status.hasDelta {
            receiveDeltas.append(status == .receivedSmallDelta
                ? .small(try fci.readRequiredInteger())
                : .large(try fci.readRequiredInteger()))
        }
        try packet.requireConsumed(fci, tolerance: 3)
    }

    /// Every reported packet with its arrival time (reference time plus the running sum of deltas),
    /// or nil arrival for lost ones and for those received without a delta.
    public var packetResults: [TransportWideCCPacketResult] {
        var results: [TransportWideCCPacketResult] = []
        results.reserveCapacity(Int(packetStatusCount))
        var arrivalMicros = Int64(referenceTime) * Self.referenceTimeUnitMicros
        var deltas = receiveDeltas.makeIterator()
        for (index, status) in Self.statuses(of: chunks, count: Int(packetStatusCount)).enumerated() {
            var arrival: Int64?
            if status.hasDelta, let delta = deltas.next() {
                arrivalMicros += Int64(delta.ticks) * Self.deltaUnitMicros
                arrival = arrivalMicros
            }
            results.append(TransportWideCCPacketResult(
                sequenceNumber: baseSequenceNumber &+ UInt16(truncatingIfNeeded: index),
                status: status, arrivalTimeMicros: arrival
            ))
        }
        return results
    }

    private var unpaddedSize: Int {
        Self.fixedSize + chunks.count * Self.chunkSize + receiveDeltas.reduce(0) { $0 + $1.encodedSize }
    }

    public var encodedSize: Int { unpaddedSize + paddingToWordBoundary(unpaddedSize) }

    public func write(to buffer: inout ByteBuffer) {
        RTCPFeedbackHeader(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC).write(
            to: &buffer, packetType: RTCPPacketType.transportFeedback,
            format: RTCPFeedbackFormat.transportWideCC, packetSize: encodedSize
        )
        buffer.writeInteger(baseSequenceNumber)
        buffer.writeInteger(packetStatusCount)
        buffer.writeInt24(referenceTime)
        buffer.writeInteger(feedbackPacketCount)
        for chunk in chunks { buffer.writeInteger(chunk.word) }
        for delta in receiveDeltas { delta.write(to: &buffer) }
        buffer.writeZeros(paddingToWordBoundary(unpaddedSize))
    }

    /// The first `count` statuses the chunks describe (the last chunk may describe more).
    private static func statuses(of chunks: [TransportWideCCChunk], count: Int) -> [TransportWideCCPacketStatus] {
        var statuses: [TransportWideCCPacketStatus] = []
        statuses.reserveCapacity(count)
        for chunk in chunks where statuses.count < count {
            chunk.appendStatuses(to: &statuses, limit: count)
        }
        return statuses
    }
}

/// The fate of one reported packet.
public struct TransportWideCCPacketResult: Sendable, Equatable {
    public var sequenceNumber: UInt16
    public var status: TransportWideCCPacketStatus
    /// Relative to the receiver's clock origin; nil when not received or reported without delta.
    public var arrivalTimeMicros: Int64?
}
