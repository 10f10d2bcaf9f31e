import Testing
@testable import DTLS

@Suite struct DTLSRecordFramerTests {
    /// A record: type 22 (handshake), DTLS 1.2 (0xFEFD), epoch 0, sequence `sequence`, `length` bytes.
    func record(sequence: UInt8, length: Int) -> [UInt8] {
        [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, sequence, UInt8(length >> 8), UInt8(length & 0xFF)]
            + [UInt8](repeating: sequence, count: length)
    }

    @Test func packsWholeRecordsUpToTheMTU() {
        let a = record(sequence: 1, length: 50), b = record(sequence: 2, length: 50), c = record(sequence: 3, length: 100)
        let datagrams = DTLSRecordFramer(mtu: 130).datagrams(from: a + b + c)
        #expect(datagrams == [a + b, c])
    }

    @Test func neverSplitsARecordLargerThanTheMTU() {
        let big = record(sequence: 1, length: 300), small = record(sequence: 2, length: 5)
        #expect(DTLSRecordFramer(mtu: 100).datagrams(from: small + big + small) == [small, big, small])
    }

    @Test func keepsTruncatedTailAsItsOwnDatagram() {
        let whole = record(sequence: 1, length: 10)
        let truncated = Array(record(sequence: 2, length: 40).prefix(20))
        #expect(DTLSRecordFramer(mtu: 1000).datagrams(from: whole + truncated) == [whole + truncated])
        #expect(DTLSRecordFramer(mtu: 1000).datagrams(from: [22, 0xFE]) == [[22, 0xFE]])
        #expect(DTLSRecordFramer(mtu: 1000).datagrams(from: []) == [])
    }
}
