import Codec
import NIOCore
import RTP

/// Packetizes each video frame once for all the senders of one output (the viewers of a WHEP
/// output), instead of once per sender. The payloads (single NAL units, STAP-A, FU-A fragments)
/// are the same bytes for every sender with the same maximum payload size; only the RTP headers,
/// their extensions and the SRTP protection differ. Each sender wraps the same immutable slices
/// in its own headers, and its NACK history keeps slices of them: one copy of a frame's payloads
/// lives as long as some sender may still retransmit it, however many viewers there are.
///
/// Owned by the one thread that fans frames out (WHEP: the UDP event loop that owns every
/// viewer): ``beginFrame()`` before handing a frame to the senders, which ask for its payloads
/// only when they send it, so a frame no sender takes is not packetized. One ``H264Payloader``
/// per rendition and payload size remembers the parameter sets of the frames packetized with it
/// (a key frame without them gets the last ones in front), so each rendition's own go in.
public struct H264PayloadSharing {
    private struct Setting: Hashable {
        var rendition: Int
        var maxPayloadSize: Int
    }

    private let allocator: ByteBufferAllocator
    private var payloaders: [Setting: H264Payloader] = [:]
    /// The current frame's payloads, by maximum payload size, made on first demand.
    private var current: [(maxPayloadSize: Int, payloads: [ByteBuffer])] = []
    /// Frames packetized (once per payload size): what sharing saved is the senders' frames less these.
    public private(set) var framesPacketized = 0

    public init(allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        self.allocator = allocator
    }

    /// A new frame is about to go to the senders: the last one's payloads are not handed out again.
    public mutating func beginFrame() {
        current.removeAll(keepingCapacity: true)
    }

    /// The payloads of the frame begun last, at `maxPayloadSize`: packetized on the first call,
    /// the same slices on every later one.
    public mutating func payloads(for frame: EncodedVideoFrame, maxPayloadSize: Int) throws(RTPError) -> [ByteBuffer] {
        if let made = current.first(where: { $0.maxPayloadSize == maxPayloadSize }) { return made.payloads }
        let setting = Setting(rendition: frame.rendition, maxPayloadSize: maxPayloadSize)
        if payloaders[setting] == nil { payloaders[setting] = try H264Payloader(maxPayloadSize: maxPayloadSize, allocator: allocator) }
        var bytes = allocator.buffer(capacity: frame.data.count)
        bytes.writeBytes(frame.data)
        // Non-nil: made above.
        let payloads = try payloaders[setting]!.payloads(for: frame.nalUnits(in: bytes))
        current.append((maxPayloadSize, payloads))
        framesPacketized += 1
        return payloads
    }
}
