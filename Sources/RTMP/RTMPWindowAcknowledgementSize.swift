import NIOCore

/// Window Acknowledgement Size (RTMP spec §5.4.4): how many bytes the receiver of this message
/// may take in before it must send an `RTMPAcknowledgement`.
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            acknowledgement window size (32 bits)              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTMPWindowAcknowledgementSize: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.windowAcknowledgementSize

    public var windowSize: UInt32

    public init(windowSize: UInt32) {
        self.windowSize = windowSize
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        windowSize = try buffer.readRequiredInteger("Window Acknowledgement Size")
    }

    public var encodedSize: Int { 4 }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(windowSize)
    }
}
