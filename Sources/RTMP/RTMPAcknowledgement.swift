import NIOCore

/// Acknowledgement (RTMP spec §5.4.3): the number of bytes received so far, sent each time
/// another window's worth (see `RTMPWindowAcknowledgementSize`) has arrived.
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  sequence number (32 bits)                    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTMPAcknowledgement: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.acknowledgement

    /// Total bytes received, wrapping at 2^32.
    public var sequenceNumber: UInt32

    public init(sequenceNumber: UInt32) {
        self.sequenceNumber = sequenceNumber
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        sequenceNumber = try buffer.readRequiredInteger("Acknowledgement sequence number")
    }

    public var encodedSize: Int { 4 }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(sequenceNumber)
    }
}
