import FuzzCore
import NIOCore
import RTP

/// RTP datagrams as a WHEP viewer or an RTP peer could send them: the fixed header, CSRCs, the
/// RFC 8285 header extension with its elements (transport-wide sequence number, video orientation,
/// abs-capture-time, which must write back to what it read) and padding. Whatever parses must re-encode to the same bytes' meaning.
func checkRTPPacket(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    var buffer = FuzzInput.byteBuffer(input)
    guard let packet = try? RTPPacket(from: &buffer) else { return }
    try fuzzRequire(buffer.readableBytes == 0, "an RTP packet is the whole datagram")
    try fuzzRequireWireRoundTrip(packet, encodedSize: packet.encodedSize) { $0.write(to: &$1) } decode: { try RTPPacket(from: &$0) }
    if let headerExtension = packet.header.headerExtension {
        for element in headerExtension.elements {
            try fuzzRequire(headerExtension.element(id: element.id) != nil, "element \(element.id) listed but not found")
            _ = TransportWideSequenceNumber(in: headerExtension, id: element.id)
            var orientation = element.data
            _ = try? VideoOrientation(from: &orientation)
            var captureTime = element.data
            if let time = try? AbsoluteCaptureTime(from: &captureTime), captureTime.readableBytes == 0 {
                try fuzzRequireWireRoundTrip(time, encodedSize: time.encodedSize) { $0.write(to: &$1) } decode: { try AbsoluteCaptureTime(from: &$0) }
            }
        }
    }
    return
}

extension FuzzTarget {
    public static let rtpPacket = FuzzTarget(name: "FuzzRTPPacket", check: checkRTPPacket)
}
