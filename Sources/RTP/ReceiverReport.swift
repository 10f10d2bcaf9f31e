import NIOCore

/// Receiver Report, RFC 3550 §6.4.2: reception statistics from a participant that sends no media
/// (or, after an SR, for more than 31 sources).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    RC   |   PT=RR=201   |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     SSRC of packet sender                     |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 report blocks (RC × 24 bytes)                 |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                  profile-specific extensions                  |
public struct ReceiverReport: Sendable, Equatable {
    /// Header + SSRC.
    static let fixedSize = 8

    public var ssrc: UInt32
    public private(set) var reports: [ReceptionReport]
    /// Profile-specific extension words after the report blocks, kept opaque.
    public private(set) var profileExtension: ByteBuffer

    /// At most 31 report blocks (the RC field).
    public init(ssrc: UInt32, reports: [ReceptionReport] = []) throws(RTPError) {
        guard reports.count <= Int(RTCPHeader.maxCount) else {
            throw .valueOutOfRange(field: "report count", value: reports.count)
        }
        self.ssrc = ssrc
        self.reports = reports
        profileExtension = ByteBuffer()
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let packet = try RTCPPacketSlice(from: &buffer, packetType: RTCPPacketType.receiverReport)
        var body = packet.body
        ssrc = try body.readRequiredInteger()
        reports = try ReceptionReport.readBlocks(count: packet.header.count, from: &body)
        profileExtension = try ReceptionReport.readProfileExtension(from: body)
    }

    public var encodedSize: Int {
        Self.fixedSize + reports.count * ReceptionReport.size + profileExtension.readableBytes
    }

    public func write(to buffer: inout ByteBuffer) {
        RTCPHeader(count: UInt8(reports.count), packetType: RTCPPacketType.receiverReport, packetSize: encodedSize)
            .write(to: &buffer)
        buffer.writeInteger(ssrc)
        for report in reports { report.write(to: &buffer) }
        buffer.writeImmutableBuffer(profileExtension)
    }
}
