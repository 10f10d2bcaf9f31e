import NIOCore
import Testing

@testable import RTMP

@Suite("Protocol and user control messages")
struct RTMPControlMessageTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var message: RTMPMessage
        var bytes: [UInt8]
        /// Cut below this many bytes the payload is truncated; longer prefixes may be a shorter valid form.
        var shortestValidLength: Int
        var testDescription: String { name }

        init(_ name: String, _ body: some RTMPMessageBody, _ bytes: [UInt8], shortestValidLength: Int? = nil) {
            self.name = name
            self.message = RTMPMessage(body)
            self.bytes = bytes
            self.shortestValidLength = shortestValidLength ?? bytes.count
        }

        /// Decodes the payload back as the body type of the vector.
        func decoded() throws -> RTMPMessage {
            switch message.type {
            case .setChunkSize: return RTMPMessage(try RTMPSetChunkSize(message))
            case .abort: return RTMPMessage(try RTMPAbort(message))
            case .acknowledgement: return RTMPMessage(try RTMPAcknowledgement(message))
            case .windowAcknowledgementSize: return RTMPMessage(try RTMPWindowAcknowledgementSize(message))
            case .setPeerBandwidth: return RTMPMessage(try RTMPSetPeerBandwidth(message))
            default: return RTMPMessage(try RTMPUserControlEvent(message))
            }
        }
    }

    static let vectors: [Vector] = [
        Vector("Set Chunk Size 4096", RTMPSetChunkSize(chunkSize: 4096), [0x00, 0x00, 0x10, 0x00]),
        Vector("Abort csid 4", RTMPAbort(chunkStreamID: 4), [0x00, 0x00, 0x00, 0x04]),
        Vector("Acknowledgement", RTMPAcknowledgement(sequenceNumber: 0x0102_0304), [0x01, 0x02, 0x03, 0x04]),
        Vector("Window 2.5 MB", RTMPWindowAcknowledgementSize(windowSize: 2_500_000), [0x00, 0x26, 0x25, 0xA0]),
        // window 5,000,000 | limit type 2 (dynamic)
        Vector(
            "Peer bandwidth", RTMPSetPeerBandwidth(windowSize: 5_000_000, limitType: .dynamic), [0x00, 0x4C, 0x4B, 0x40, 0x02],
            shortestValidLength: 4),
        // window 2,500,000 and no limit type, as librtmp accepts
        Vector("Peer bandwidth, no limit type", RTMPSetPeerBandwidth(windowSize: 2_500_000, limitType: nil), [0x00, 0x26, 0x25, 0xA0]),
        // event 0 (Stream Begin) | stream 1
        Vector("Stream Begin", RTMPUserControlEvent.streamBegin(messageStreamID: 1), [0x00, 0x00, 0x00, 0x00, 0x00, 0x01]),
        Vector("Stream EOF", RTMPUserControlEvent.streamEOF(messageStreamID: 1), [0x00, 0x01, 0x00, 0x00, 0x00, 0x01]),
        Vector("Stream Dry", RTMPUserControlEvent.streamDry(messageStreamID: 1), [0x00, 0x02, 0x00, 0x00, 0x00, 0x01]),
        // event 3 | stream 1 | 3000 ms
        Vector(
            "Set Buffer Length", RTMPUserControlEvent.setBufferLength(messageStreamID: 1, milliseconds: 3000),
            [0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x0B, 0xB8]),
        Vector("Recorded", RTMPUserControlEvent.streamIsRecorded(messageStreamID: 1), [0x00, 0x04, 0x00, 0x00, 0x00, 0x01]),
        // event 6 | server timestamp
        Vector("Ping Request", RTMPUserControlEvent.pingRequest(timestamp: 0xDEAD_BEEF), [0x00, 0x06, 0xDE, 0xAD, 0xBE, 0xEF]),
        Vector("Ping Response", RTMPUserControlEvent.pingResponse(timestamp: 0xDEAD_BEEF), [0x00, 0x07, 0xDE, 0xAD, 0xBE, 0xEF]),
        // event 26 (SWF verification request), unknown here, kept raw
        Vector("unknown event", RTMPUserControlEvent.unknown(eventType: 26, data: ByteBuffer([0x01])), [0x00, 0x1A, 0x01]),
    ]

    @Test(arguments: vectors)
    func encodes(_ vector: Vector) {
        #expect(vector.message.payload.bytes == vector.bytes)
        #expect(vector.message.chunkStreamID == 2)
        #expect(vector.message.messageStreamID == 0)
    }

    @Test(arguments: vectors)
    func decodes(_ vector: Vector) throws {
        #expect(try vector.decoded() == vector.message)
    }

    @Test(arguments: vectors.filter { $0.name != "unknown event" })
    func truncationAtEveryOffset(_ vector: Vector) {
        for length in 0..<vector.shortestValidLength {
            var message = vector.message
            message.payload = ByteBuffer(Array(vector.bytes.prefix(length)))
            guard case .truncated = rtmpError({ _ = try vector.decodedWith(message) }) else {
                Issue.record("\(vector.name) cut to \(length) bytes decoded")
                continue
            }
        }
    }

    @Test func trailingBytesAreRejected() {
        let message = RTMPMessage(
            chunkStreamID: 2, messageStreamID: 0, timestamp: 0, type: .acknowledgement, payload: ByteBuffer([0, 0, 0, 1, 0xFF]))
        #expect(rtmpError { _ = try RTMPAcknowledgement(message) } == .invalidMessage(type: 3, reason: "1 trailing bytes"))
    }

    @Test func wrongTypeIsRejected() {
        let message = RTMPMessage(chunkStreamID: 2, messageStreamID: 0, timestamp: 0, type: .abort, payload: ByteBuffer([0, 0, 0, 1]))
        #expect(rtmpError { _ = try RTMPAcknowledgement(message) } == .invalidMessage(type: 2, reason: "expected type 3"))
    }
}

extension RTMPControlMessageTests.Vector {
    func decodedWith(_ message: RTMPMessage) throws -> RTMPMessage {
        var copy = self
        copy.message = message
        return try copy.decoded()
    }
}
