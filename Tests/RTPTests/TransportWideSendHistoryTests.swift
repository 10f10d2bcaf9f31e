import NIOCore
import Testing
@testable import RTP

@Suite struct TransportWideSendHistoryTests {
    @Test func numbersWrapAtSixteenBitsAndLookupsUnwrap() {
        var history = TransportWideSendHistory(capacity: 100)
        #expect(history.capacity == 128)
        var last: UInt16 = 0
        for index in 0..<70_000 { last = history.next(sendTimeNanos: Int64(index), sizeBytes: 1000 + index % 7) }
        #expect(last == UInt16(truncatingIfNeeded: 69_999))
        let entry = history.entry(for: last)
        #expect(entry == .init(sequenceNumber: 69_999, sendTimeNanos: 69_999, sizeBytes: 1000 + 69_999 % 7))
        #expect(history.entry(for: last &- 100)?.sequenceNumber == 69_899)
        #expect(history.entry(for: last &- 200) == nil, "overwritten: older than the ring")
        #expect(history.entry(for: last &+ 1) == nil, "not sent yet")
    }

    @Test func theNewestSizeIsCorrectedAfterProtection() {
        var history = TransportWideSendHistory()
        let number = history.next(sendTimeNanos: 5, sizeBytes: 1000)
        history.updateNewest(sizeBytes: 1010)
        #expect(history.entry(for: number)?.sizeBytes == 1010)
    }
}

@Suite struct TransportWideSequenceNumberTests {
    @Test func theTemplatesNumberIsPatchedInTheSerializedPacket() throws {
        var orientation = ByteBuffer()
        orientation.writeInteger(UInt8(1))
        let template = try TransportWideSequenceNumber.template(id: 3, followedBy: [RTPHeaderExtensionElement(id: 4, data: orientation)])
        // ID 3, L=1, 0x0000; ID 4, L=0, 0x01; one byte of padding.
        #expect(Array(template.data.readableBytesView) == [0x31, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00] as [UInt8])
        let header = try RTPHeader(payloadType: 96, sequenceNumber: 7, timestamp: 9, ssrc: 11, csrcs: [1, 2], headerExtension: template)
        var buffer = ByteBuffer()
        RTPPacket(header: header, payload: ByteBuffer(bytes: [0xAA, 0xBB])).write(to: &buffer)
        buffer.setInteger(UInt16(0xBEEF), at: TransportWideSequenceNumber.sequenceNumberOffset(in: header))
        let parsed = try RTPPacket(from: &buffer)
        let parsedExtension = try #require(parsed.header.headerExtension)
        #expect(TransportWideSequenceNumber(in: parsedExtension, id: 3)?.value == 0xBEEF)
        #expect(parsedExtension.element(id: 4).map { Array($0.readableBytesView) } == [0x01])
        #expect(Array(parsed.payload.readableBytesView) == [0xAA, 0xBB])
    }
}
