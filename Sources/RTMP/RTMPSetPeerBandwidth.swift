import NIOCore

/// Set Peer Bandwidth (RTMP spec §5.4.5): limits the receiver's output; the receiver answers with a
/// Window Acknowledgement Size when the window differs from the last one it sent.
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            acknowledgement window size (32 bits)              | limit type(8) |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Some servers leave out the limit type (librtmp reads it only when present, FFmpeg never reads it);
/// such a message decodes with `limitType` nil.
public struct RTMPSetPeerBandwidth: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.setPeerBandwidth

    /// §5.4.5: 0 hard, 1 soft, 2 dynamic. Kept raw so unknown values round-trip.
    public struct LimitType: RawRepresentable, Sendable, Hashable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let hard = Self(rawValue: 0)
        public static let soft = Self(rawValue: 1)
        public static let dynamic = Self(rawValue: 2)
    }

    public var windowSize: UInt32
    /// `nil` when the message ended after the window size.
    public var limitType: LimitType?

    public init(windowSize: UInt32, limitType: LimitType?) {
        self.windowSize = windowSize
        self.limitType = limitType
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        windowSize = try buffer.readRequiredInteger("Set Peer Bandwidth window size")
        limitType = buffer.readInteger(as: UInt8.self).map(LimitType.init(rawValue:))
    }

    public var encodedSize: Int { limitType == nil ? 4 : 5 }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(windowSize)
        if let limitType {
            buffer.writeInteger(limitType.rawValue)
        }
    }
}
