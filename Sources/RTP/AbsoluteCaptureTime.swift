import MediaCore
import NIOCore

/// The absolute capture time header extension (`http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time`,
/// webrtc.org's "Absolute Capture Time" spec): when the frame a packet belongs to was captured, on
/// the sender's wall clock in NTP form, so a receiver can tell the capture instant of each frame
/// without the RTP/NTP mapping of Sender Reports (and across mixers, which keep it).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  ID   | len=7 |     absolute capture timestamp (bit 0-23)     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |             absolute capture timestamp (bit 24-55)            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  ... (56-63)  |
///     +-+-+-+-+-+-+-+-+
///
/// The timestamp is UQ32.32 NTP time (``NTPTimestamp``). The 16-byte form adds the estimated
/// capture clock offset (Q32.32, signed), which only a mixer that knows the original sender's
/// clock fills in; the capturing sender leaves it out (it is zero by definition there).
public struct AbsoluteCaptureTime: Sendable, Equatable {
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
    /// The timestamp alone, the form a capturing sender writes.
    public static let shortSize = 8
    /// With the estimated capture clock offset.
    public static let longSize = 16

    public var captureTime: NTPTimestamp
    /// The capture clock's offset from the sender's (Q32.32 seconds); nil in the short form.
    public var estimatedCaptureClockOffset: Int64?

    public init(captureTime: NTPTimestamp, estimatedCaptureClockOffset: Int64? = nil) {
        self.captureTime = captureTime
        self.estimatedCaptureClockOffset = estimatedCaptureClockOffset
    }

    /// Reads an element's data, which is 8 or 16 bytes and nothing else.
    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let size = buffer.readableBytes
        guard size == Self.shortSize || size == Self.longSize else {
            throw .invalidLength(field: "abs-capture-time", length: size)
        }
        captureTime = NTPTimestamp(rawValue: try buffer.readRequiredInteger())
        estimatedCaptureClockOffset = size == Self.longSize ? try buffer.readRequiredInteger(as: Int64.self) : nil
    }

    /// This element's value in `headerExtension`, when it has one with `id` that parses.
    public init?(in headerExtension: RTPHeaderExtension, id: UInt8) {
        guard var data = headerExtension.element(id: id), let value = try? Self(from: &data) else { return nil }
        self = value
    }

    public var encodedSize: Int { estimatedCaptureClockOffset == nil ? Self.shortSize : Self.longSize }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(captureTime.rawValue)
        if let offset = estimatedCaptureClockOffset { buffer.writeInteger(offset) }
    }

    /// Appends this value as one one-byte-form element under `id` to a block being built in
    /// `buffer` (``RTPHeaderExtension/writeOneByteElement(id:length:to:_:)``), with no allocation.
    public func writeElement(id: UInt8, to buffer: inout ByteBuffer) throws(RTPError) {
        try RTPHeaderExtension.writeOneByteElement(id: id, length: encodedSize, to: &buffer) { write(to: &$0) }
    }
}
