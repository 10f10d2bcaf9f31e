import NIOCore
import RTP

/// The header extension blocks of a frame's first packet when the peer negotiated abs-capture-time
/// (``AbsoluteCaptureTime``): the transport-wide sequence number template first, when negotiated
/// (``TransportWideCCSender`` stamps its number there), then the frame's capture time; and, when
/// video orientation is negotiated too, the block of a frame sent in one packet, which is also the
/// last and carries the orientation as well; with a playout delay (``PlayoutDelay``), both blocks
/// end with it.
///
/// The capture time differs per frame, so the blocks are written per frame into the frame's own
/// send buffer (``RTPHeaderExtension/writeOneByteElement(id:length:to:_:)``): no allocation of
/// their own, and the packets the NACK history keeps carry the true value for retransmissions.
public struct CaptureTimeExtensionBlocks: Sendable {
    public let captureTimeID: UInt8
    public let transportWideID: UInt8?
    public let orientationID: UInt8?
    public let playoutDelay: (id: UInt8, value: PlayoutDelay)?
    /// Room both blocks need at most: 3 (transport-wide) + 9 (capture time) + 2 (orientation) + 4
    /// (playout delay), to a word, twice.
    static let maxBytes = 40

    public init(captureTimeID: UInt8, transportWideID: UInt8?, orientationID: UInt8?, playoutDelay: (id: UInt8, value: PlayoutDelay)? = nil) {
        self.captureTimeID = captureTimeID
        self.transportWideID = transportWideID
        self.orientationID = orientationID
        self.playoutDelay = playoutDelay
    }

    /// Writes the first packet's block (and the only packet's, with orientation) at the end of
    /// `buffer`. Both are written before either is sliced off: a write to a buffer with a live
    /// slice would copy all of it.
    public func write(_ captureTime: AbsoluteCaptureTime, orientation: VideoOrientation, to buffer: inout ByteBuffer) throws(RTPError)
        -> (first: RTPHeaderExtension, only: RTPHeaderExtension?) {
        let first = try writeBlock(captureTime, orientation: nil, to: &buffer)
        let only = try orientationID.map { id throws(RTPError) in try writeBlock(captureTime, orientation: (id, orientation), to: &buffer) }
        return (try RTPHeaderExtension(oneByteBlockIn: buffer, at: first),
                try only.map { range throws(RTPError) in try RTPHeaderExtension(oneByteBlockIn: buffer, at: range) })
    }

    /// Writes one block's elements, zero-padded to a word; returns where it lies in `buffer`.
    private func writeBlock(_ captureTime: AbsoluteCaptureTime, orientation: (id: UInt8, value: VideoOrientation)?,
                            to buffer: inout ByteBuffer) throws(RTPError) -> Range<Int> {
        let start = buffer.writerIndex
        if let id = transportWideID {
            try RTPHeaderExtension.writeOneByteElement(id: id, length: TransportWideSequenceNumber.dataSize, to: &buffer) { $0.writeInteger(UInt16(0)) }
        }
        try captureTime.writeElement(id: captureTimeID, to: &buffer)
        if let orientation {
            try RTPHeaderExtension.writeOneByteElement(id: orientation.id, length: orientation.value.encodedSize, to: &buffer) { orientation.value.write(to: &$0) }
        }
        if let playoutDelay { try playoutDelay.value.writeElement(id: playoutDelay.id, to: &buffer) }
        RTPHeaderExtension.padOneByteBlock(in: &buffer, from: start)
        return start..<buffer.writerIndex
    }
}
