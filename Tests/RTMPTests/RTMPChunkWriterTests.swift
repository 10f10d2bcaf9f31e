import NIOCore
import Testing

@testable import RTMP

@Suite("RTMPChunkWriter")
struct RTMPChunkWriterTests {
    func message(
        csid: UInt32 = 4, stream: UInt32 = 1, timestamp: UInt32, type: RTMPMessageType = .audio, payload: [UInt8]
    ) -> RTMPMessage {
        RTMPMessage(chunkStreamID: csid, messageStreamID: stream, timestamp: timestamp, type: type, payload: ByteBuffer(payload))
    }

    @Test func headerCompressionFollowsTheSpecExample() throws {
        // RTMP spec §5.3.2.1 example 1: audio messages, same stream, same length, 33 ms apart
        let bytes = try writeChunks([
            message(timestamp: 1000, payload: [0xA1, 0xA2]),
            message(timestamp: 1033, payload: [0xB1, 0xB2]),
            message(timestamp: 1066, payload: [0xC1, 0xC2]),
            message(timestamp: 1099, payload: [0xD1, 0xD2]),
        ])
        #expect(
            bytes == [
                // fmt=0 csid=4 | ts=1000 (0x0003E8) | len=2 | type=8 | stream=1 (LE)
                0x04, 0x00, 0x03, 0xE8, 0x00, 0x00, 0x02, 0x08, 0x01, 0x00, 0x00, 0x00, 0xA1, 0xA2,
                // fmt=2 csid=4 | delta=33: after type 0 the writer never relies on the implicit delta
                0x84, 0x00, 0x00, 0x21, 0xB1, 0xB2,
                // fmt=3 csid=4: same delta as the type 2 before it
                0xC4, 0xC1, 0xC2,
                // fmt=3 csid=4
                0xC4, 0xD1, 0xD2,
            ])
    }

    @Test func lengthChangeUsesType1AndStreamChangeUsesType0() throws {
        let bytes = try writeChunks([
            message(csid: 6, timestamp: 0, type: .video, payload: [1]),
            message(csid: 6, timestamp: 40, type: .video, payload: [2, 3]),
            message(csid: 6, stream: 2, timestamp: 80, type: .video, payload: [4, 5]),
        ])
        #expect(
            bytes == [
                // fmt=0 csid=6 ts=0 len=1 type=9 stream=1
                0x06, 0, 0, 0, 0, 0, 1, 0x09, 1, 0, 0, 0, 0x01,
                // fmt=1 csid=6 delta=40 len=2 type=9
                0x46, 0, 0, 40, 0, 0, 2, 0x09, 0x02, 0x03,
                // fmt=0: message stream changed
                0x06, 0, 0, 80, 0, 0, 2, 0x09, 2, 0, 0, 0, 0x04, 0x05,
            ])
    }

    @Test func backwardsTimestampUsesType0() throws {
        let bytes = try writeChunks([
            message(timestamp: 500, payload: [1]),
            message(timestamp: 400, payload: [2]),
        ])
        // second header: fmt=0, ts=400 (0x000190)
        #expect(Array(bytes[13...]) == [0x04, 0x00, 0x01, 0x90, 0, 0, 1, 0x08, 1, 0, 0, 0, 0x02])
    }

    @Test func splitsAtChunkSizeWithType3Continuations() throws {
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = try writeChunks([message(timestamp: 0, type: .video, payload: payload)])
        // 128 + 128 + 44 bytes: one 12-byte header and two 1-byte type 3 headers
        #expect(bytes.count == 12 + 300 + 2)
        #expect(bytes[12 + 128] == 0xC4)
        #expect(bytes[12 + 128 + 1 + 128] == 0xC4)
        #expect(Array(bytes[(12 + 129)..<(12 + 129 + 128)]) == Array(payload[128..<256]))
    }

    @Test func extendedTimestampIsRepeatedOnContinuationChunks() throws {
        let payload = [UInt8](repeating: 0xAB, count: 129)
        let bytes = try writeChunks([message(timestamp: 0x0100_0000, payload: payload)])
        #expect(
            Array(bytes.prefix(16)) == [
                // fmt=0 csid=4, ts field 0xFFFFFF, len=129, type 8, stream 1, extended 0x01000000
                0x04, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x81, 0x08, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
            ])
        // continuation: fmt=3 csid=4 and the extended timestamp again
        #expect(Array(bytes[(16 + 128)..<(16 + 128 + 5)]) == [0xC4, 0x01, 0x00, 0x00, 0x00])
        #expect(bytes.count == 16 + 128 + 5 + 1)
    }

    @Test func timestampJustBelowMarkerIsNotExtended() throws {
        let bytes = try writeChunks([message(timestamp: 0xFF_FFFE, payload: [])])
        #expect(bytes == [0x04, 0xFF, 0xFF, 0xFE, 0, 0, 0, 0x08, 1, 0, 0, 0])
    }

    @Test func setChunkSizeSwitchesAfterItsOwnMessage() throws {
        var writer = RTMPChunkWriter()
        var buffer = ByteBuffer()
        try writer.write(RTMPMessage(RTMPSetChunkSize(chunkSize: 4096)), into: &buffer)
        #expect(writer.chunkSize == 4096)
        // fmt=0 csid=2 ts=0 len=4 type=1 stream=0 | 4096
        #expect(buffer.bytes == [0x02, 0, 0, 0, 0, 0, 4, 0x01, 0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00])
        buffer.clear()
        try writer.write(message(timestamp: 0, payload: [UInt8](repeating: 1, count: 4000)), into: &buffer)
        #expect(buffer.readableBytes == 12 + 4000)  // one chunk
    }

    @Test(arguments: [UInt32(0), 1, 32, 64, 400])
    func rejectsChunkStreamIDsOutsideTwoToThirtyOne(csid: UInt32) {
        var writer = RTMPChunkWriter()
        var buffer = ByteBuffer()
        #expect(rtmpError { try writer.write(message(csid: csid, timestamp: 0, payload: []), into: &buffer) } == .invalidChunkStreamID(csid))
        #expect(buffer.readableBytes == 0)
    }

    @Test func rejectsMessagesPastTwentyFourBits() {
        var writer = RTMPChunkWriter()
        var buffer = ByteBuffer()
        let huge = message(timestamp: 0, payload: [UInt8](repeating: 0, count: 0x100_0000))
        #expect(rtmpError { try writer.write(huge, into: &buffer) } == .messageTooLong(length: 0x100_0000, limit: 0xFF_FFFF))
    }

    @Test func writesOnlyIntoTheCallersBuffer() throws {
        var writer = RTMPChunkWriter()
        var buffer = ByteBuffer()
        buffer.reserveCapacity(64 * 1024)
        let capacity = buffer.capacity
        for frame in 0..<100 {
            buffer.clear()
            try writer.write(message(timestamp: UInt32(frame) * 33, payload: [UInt8](repeating: 7, count: 1000)), into: &buffer)
        }
        #expect(buffer.capacity == capacity)
    }
}
