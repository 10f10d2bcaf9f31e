import MediaCore
import NIOCore

/// Sender Report, RFC 3550 §6.4.1: ties this source's RTP clock to wall-clock (NTP) time, so
/// receivers can sync audio with video, and counts what was sent.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    RC   |   PT=SR=200   |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         SSRC of sender                        |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |              NTP timestamp, most significant word             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |             NTP timestamp, least significant word             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         RTP timestamp                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     sender's packet count                     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                      sender's octet count                     |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 report blocks (RC × 24 bytes)                 |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                  profile-specific extensions                  |
public struct SenderReport: Sendable, Equatable {
    /// Header + SSRC + sender info.
    static let fixedSize = 28

    public var ssrc: UInt32
    public var ntpTimestamp: NTPTimestamp
    /// The same instant as `ntpTimestamp` on the stream's RTP clock.
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    /// Payload octets sent (headers and padding excluded).
    public var octetCount: UInt32
    public private(set) var reports: [ReceptionReport]
    /// Profile-specific extension words after the report blocks, kept opaque.
    public private(set) var profileExtension: ByteBuffer

    /// At most 31 report blocks (the RC field); more need a second RR in the compound packet.
    public init(
        ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [ReceptionReport] = []
    ) throws(RTPError) {
        guard reports.count <= Int(RTCPHeader.maxCount) else {
            throw .valueOutOfRange(field: "report count", value: reports.count)
        }
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
        profileExtension = ByteBuffer()
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let packet = try RTCPPacketSlice(from: &buffer, packetType: RTCPPacketType.senderReport)
        var body = packet.body
        ssrc = try body.readRequiredInteger()
        ntpTimestamp = NTPTimestamp(rawValue: try body.readRequiredInteger())
        rtpTimestamp = try body.readRequiredInteger()
        packetCount = try body.readRequiredInteger()
        octetCount = try body.readRequiredInteger()
        reports = try ReceptionReport.readBlocks(count: packet.header.count, from: &body)
        profileExtension = try ReceptionReport.readProfileExtension(from: body)
    }

    public var encodedSize: Int {
        Self.fixedSize + reports.count * ReceptionReport.size + profileExtension.readableBytes
    }

    public func write(to buffer: inout ByteBuffer) {
        RTCPHeader(count: UInt8(reports.count), packetType: RTCPPacketType.senderReport, packetSize: encodedSize)
            .write(to: &buffer)
        buffer.writeInteger(ssrc)
        buffer.writeInteger(ntpTimestamp.rawValue)
        buffer.writeInteger(rtpTimestamp)
        buffer.writeInteger(packetCount)
        buffer.writeInteger(octetCount)
        for report in reports { report.write(to: &buffer) }
        buffer.writeImmutableBuffer(profileExtension)
    }
}

extension ReceptionReport {
    /// Reads the `count` blocks an SR or RR header announces.
    static func readBlocks(count: UInt8, from body: inout ByteBuffer) throws(RTPError) -> [ReceptionReport] {
        try body.requireReadable(Int(count) * size)
        var reports: [ReceptionReport] = []
        reports.reserveCapacity(Int(count))
        for _ in 0..<count { reports.append(try ReceptionReport(from: &body)) }
        return reports
    }

    /// The words after the report blocks; they must keep the packet word-aligned.
    static func readProfileExtension(from body: ByteBuffer) throws(RTPError) -> ByteBuffer {
        guard body.readableBytes % 4 == 0 else {
            throw .invalidLength(field: "profile-specific extension", length: body.readableBytes)
        }
        return body
    }
}
