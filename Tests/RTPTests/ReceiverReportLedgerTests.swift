import Testing
@testable import RTP

/// Receiver reports name packets; the ledger turns them into the bytes sent through that packet.
@Suite struct ReceiverReportLedgerTests {
    /// Sends `count` packets from `first` on, packet i being `100 + i` bytes; returns the running totals.
    static func send(_ count: Int, from first: UInt16, into ledger: inout ReceiverReportLedger) -> [Int64] {
        var totals: [Int64] = []
        var total = ledger.bytesSent
        for index in 0..<count {
            let bytes = 100 + index
            ledger.recordSent(sequenceNumber: first &+ UInt16(index), bytes: bytes)
            total += Int64(bytes)
            totals.append(total)
        }
        return totals
    }

    @Test func aReportAcknowledgesTheBytesThroughTheReportedPacket() {
        var ledger = ReceiverReportLedger(capacity: 64)
        let totals = Self.send(20, from: 1000, into: &ledger)
        #expect(ledger.bytesSent == totals.last)
        #expect(ledger.bytesAcknowledged == 0)
        let advanced1009 = ledger.acknowledge(extendedHighestSequenceNumber: 1009)
        #expect(advanced1009)
        #expect(ledger.bytesAcknowledged == totals[9])
        let advanced1019 = ledger.acknowledge(extendedHighestSequenceNumber: 1019)
        #expect(advanced1019)
        #expect(ledger.bytesAcknowledged == totals[19])
        #expect(ledger.reportsApplied == 2)
    }

    @Test func theSixteenBitWrapKeepsCountingForward() {
        var ledger = ReceiverReportLedger(capacity: 64)
        // 65530 … 65535, 0 … 9: the wrap in the middle.
        let totals = Self.send(16, from: 65530, into: &ledger)
        let advanced65534 = ledger.acknowledge(extendedHighestSequenceNumber: 65534)
        #expect(advanced65534)
        #expect(ledger.bytesAcknowledged == totals[4])
        let advanced3 = ledger.acknowledge(extendedHighestSequenceNumber: 3)
        #expect(advanced3)
        #expect(ledger.bytesAcknowledged == totals[9], "sequence 3 is the tenth packet, past the wrap")
    }

    @Test func theReceiversCycleCountIsNotTakenForOurs() {
        var ledger = ReceiverReportLedger(capacity: 64)
        let totals = Self.send(16, from: 65530, into: &ledger)
        // A receiver that started counting before the wrap reports one cycle: 0x0001_0005.
        let advancedx00010005 = ledger.acknowledge(extendedHighestSequenceNumber: 0x0001_0005)
        #expect(advancedx00010005)
        #expect(ledger.bytesAcknowledged == totals[11])
        // One that reports in 16 bits only (aiortc) names the same packet: nothing new.
        let advanced5 = ledger.acknowledge(extendedHighestSequenceNumber: 5)
        #expect(!advanced5)
        #expect(ledger.bytesAcknowledged == totals[11])
    }

    @Test func staleRepeatedAndUnsentReportsAcknowledgeNothingNew() {
        var ledger = ReceiverReportLedger(capacity: 64)
        let beforeSending = ledger.acknowledge(extendedHighestSequenceNumber: 7)
        #expect(!beforeSending, "nothing sent yet")
        let totals = Self.send(200, from: 0, into: &ledger)
        // 190 (new), 190 again, 180 (older), 100 (older than the ring), 250 (never sent).
        let advanced = [190, 190, 180, 100, 250].map { ledger.acknowledge(extendedHighestSequenceNumber: UInt32($0)) }
        #expect(advanced == [true, false, false, false, false])
        #expect(ledger.bytesAcknowledged == totals[190])
        #expect(ledger.reportsApplied == 3, "the repeat and the older one named held packets")
    }

    @Test func capacityIsAPowerOfTwoThatDividesTheSequenceSpace() {
        #expect(ReceiverReportLedger(capacity: 1000).capacity == 1024)
        #expect(ReceiverReportLedger(capacity: 1 << 20).capacity == 1 << 15)
        #expect(ReceiverReportLedger(capacity: 0).capacity == 2)
    }
}
