import NIOCore
import Testing
import TestSupport

@testable import RTMP

@Suite("RTMPChunkReader")
struct RTMPChunkReaderTests {
    /// RTMP spec §5.3.2.2 example 2: one 307-byte video message in three chunks of 128 bytes.
    static let videoPayload = (0..<307).map { UInt8(truncatingIfNeeded: $0 * 7) }
    static let splitMessage: [UInt8] =
        // fmt=0 csid=4 ts=1000 len=307 (0x000133) type=9 stream=1
        [0x04, 0x00, 0x03, 0xE8, 0x00, 0x01, 0x33, 0x09, 0x01, 0x00, 0x00, 0x00] + videoPayload[0..<128]
        + [0xC4] + videoPayload[128..<256]  // fmt=3 csid=4
        + [0xC4] + videoPayload[256...]  // fmt=3 csid=4

    @Test(arguments: [1, 2, 3, 7, 128, Int.max])
    func splitMessageInPieces(pieceSize: Int) throws {
        let messages = try readMessages(Self.splitMessage, pieceSize: pieceSize)
        #expect(
            messages == [
                RTMPMessage(chunkStreamID: 4, messageStreamID: 1, timestamp: 1000, type: .video, payload: ByteBuffer(Self.videoPayload))
            ])
    }

    @Test func allFourHeaderFormats() throws {
        let input: [UInt8] = [
            // fmt=0 csid=3 ts=100 len=1 type=20 stream=0
            0x03, 0, 0, 100, 0, 0, 1, 0x14, 0, 0, 0, 0, 0xAA,
            // fmt=1 csid=3 delta=10 len=2 type=18
            0x43, 0, 0, 10, 0, 0, 2, 0x12, 0xBB, 0xBB,
            // fmt=2 csid=3 delta=5
            0x83, 0, 0, 5, 0xCC, 0xCC,
            // fmt=3 csid=3: new message, delta 5 again
            0xC3, 0xDD, 0xDD,
        ]
        let messages = try readMessages(input)
        #expect(messages.map(\.timestamp) == [100, 110, 115, 120])
        #expect(messages.map(\.type) == [.commandAMF0, .dataAMF0, .dataAMF0, .dataAMF0])
        #expect(messages.map(\.payload.bytes) == [[0xAA], [0xBB, 0xBB], [0xCC, 0xCC], [0xDD, 0xDD]])
    }

    @Test func type3AfterType0AddsTheType0TimestampAsDelta() throws {
        // §5.3.1.2.4: a type 3 following a type 0 uses the type 0 timestamp as its delta
        let input: [UInt8] = [0x04, 0, 0, 20, 0, 0, 1, 0x08, 1, 0, 0, 0, 0x01, 0xC4, 0x02]
        #expect(try readMessages(input).map(\.timestamp) == [20, 40])
    }

    static let longBasicHeaderVectors: [([UInt8], UInt32)] = [
        // 2-byte form: byte 0 = fmt|0, then id-64
        ([0x00, 0x00], 64),
        ([0x00, 0xFF], 319),
        // 3-byte form: byte 0 = fmt|1, then id-64 little-endian
        ([0x01, 0x00, 0x01], 320),
        ([0x01, 0xFF, 0xFF], 65599),
    ]

    @Test(arguments: longBasicHeaderVectors)
    func longBasicHeaders(basicHeader: [UInt8], chunkStreamID: UInt32) throws {
        let input = basicHeader + [0, 0, 1, 0, 0, 1, 0x08, 0, 0, 0, 0, 0x42]
        let messages = try readMessages(input, pieceSize: 1)
        #expect(messages.map(\.chunkStreamID) == [chunkStreamID])
        #expect(messages.first?.payload.bytes == [0x42])
        // and the basic header codec writes the same bytes back
        var buffer = ByteBuffer()
        RTMPChunkBasicHeader(format: 0, chunkStreamID: chunkStreamID).write(to: &buffer)
        #expect(buffer.bytes == basicHeader)
    }

    @Test func interleavedChunkStreams() throws {
        // audio on csid 4 and video on csid 6, each 200 bytes, chunks alternating
        let audio = [UInt8](repeating: 0xA0, count: 200)
        let video = [UInt8](repeating: 0xB0, count: 200)
        var input: [UInt8] = [0x04, 0, 0, 1, 0, 0, 200, 0x08, 1, 0, 0, 0]  // fmt=0 csid=4 ts=1 len=200 audio
        input += audio[0..<128]
        input += [0x06, 0, 0, 2, 0, 0, 200, 0x09, 1, 0, 0, 0]  // fmt=0 csid=6 ts=2 len=200 video
        input += video[0..<128]
        input += [0xC4] + audio[128...]
        input += [0xC6] + video[128...]
        let messages = try readMessages(input, pieceSize: 5)
        #expect(messages.map(\.type) == [.audio, .video])
        #expect(messages.map(\.payload.bytes) == [audio, video])
        #expect(messages.map(\.timestamp) == [1, 2])
    }

    @Test func extendedTimestampOnContinuation() throws {
        let payload = [UInt8](repeating: 9, count: 130)
        let input: [UInt8] =
            // fmt=0 csid=4 ts=0xFFFFFF len=130 type 8 stream 1, extended 0x12345678
            [0x04, 0xFF, 0xFF, 0xFF, 0, 0, 130, 0x08, 1, 0, 0, 0, 0x12, 0x34, 0x56, 0x78] + payload[0..<128]
            // fmt=3 csid=4, extended timestamp repeated
            + [0xC4, 0x12, 0x34, 0x56, 0x78] + payload[128...]
        let messages = try readMessages(input, pieceSize: 1)
        #expect(messages.map(\.timestamp) == [0x1234_5678])
        #expect(messages.first?.payload.bytes == payload)
    }

    @Test func setChunkSizeFromPeerIsApplied() throws {
        let payload = [UInt8](repeating: 3, count: 200)
        let input: [UInt8] =
            // Set Chunk Size 256 on csid 2
            [0x02, 0, 0, 0, 0, 0, 4, 0x01, 0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00]
            // 200-byte message in one chunk
            + [0x04, 0, 0, 0, 0, 0, 200, 0x08, 1, 0, 0, 0] + payload
        let messages = try readMessages(input)
        #expect(messages.map(\.type) == [.setChunkSize, .audio])
        #expect(messages.last?.payload.bytes == payload)
    }

    @Test func abortDropsThePartialMessage() throws {
        var reader = RTMPChunkReader()
        var buffer = ByteBuffer(
            // first 128 of a 200-byte message on csid 4
            [0x04, 0, 0, 0, 0, 0, 200, 0x08, 1, 0, 0, 0] + [UInt8](repeating: 1, count: 128)
                // Abort csid 4
                + [0x02, 0, 0, 0, 0, 0, 4, 0x02, 0, 0, 0, 0, 0, 0, 0, 4]
                // new 1-byte message on csid 4 (type 1 header is allowed after the abort)
                + [0x44, 0, 0, 1, 0, 0, 1, 0x08, 0x55])
        #expect(try reader.decode(buffer: &buffer)?.type == .abort)
        #expect(reader.bufferedBytes == 0)
        let next = try reader.decode(buffer: &buffer)
        #expect(next?.payload.bytes == [0x55])
        #expect(next?.timestamp == 1)
    }

    @Test func zeroLengthMessage() throws {
        let messages = try readMessages([0x03, 0, 0, 0, 0, 0, 0, 0x14, 0, 0, 0, 0])
        #expect(messages.count == 1)
        #expect(messages.first?.payload.readableBytes == 0)
    }

    // MARK: Hostile peers

    /// Set Chunk Size as FFmpeg accepts it: any size up to 2^31-1 (the field's 31 bits; a set top bit is
    /// ignored), each followed by a 5000-byte message cut at that size.
    @Test(arguments: [
        ([UInt8(0x00), 0x00, 0x00, 0x01], 1),  // the smallest
        ([0x00, 0x00, 0x10, 0x00], 4096),
        ([0x00, 0xFF, 0xFF, 0xFF], 0xFF_FFFF),  // the longest message the header can announce
        ([0x01, 0x00, 0x00, 0x00], 0x0100_0000),  // more than any message needs
        ([0x7F, 0xFF, 0xFF, 0xFF], 0x7FFF_FFFF),  // the largest the spec allows
        ([0x80, 0x00, 0x10, 0x00], 4096),  // top bit set: 31-bit field 4096
        ([0xFF, 0xFF, 0xFF, 0xFF], 0x7FFF_FFFF),
    ])
    func chunkSizesUpTo31Bits(field: [UInt8], chunkSize: Int) throws {
        let payload = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        var input: [UInt8] = [0x02, 0, 0, 0, 0, 0, 4, 0x01, 0, 0, 0, 0] + field  // fmt=0 csid=2 len=4 Set Chunk Size
        input += [0x04, 0, 0, 0, 0, 0x13, 0x88, 0x09, 1, 0, 0, 0]  // fmt=0 csid=4 len=5000 video stream 1
        for start in stride(from: 0, to: payload.count, by: chunkSize) {
            if start > 0 { input.append(0xC4) }  // fmt=3 csid=4
            input += payload[start..<min(payload.count, start + chunkSize)]
        }
        let messages = try readMessages(input, pieceSize: 1000)
        #expect(messages.map(\.type) == [.setChunkSize, .video])
        #expect(messages.last?.payload.bytes == payload)
        #expect(try RTMPSetChunkSize(#require(messages.first)).chunkSize == UInt32(chunkSize))
    }

    @Test(arguments: [[UInt8(0x00), 0x00, 0x00, 0x00], [0x80, 0x00, 0x00, 0x00]])
    func chunkSizeZeroIsRefused(field: [UInt8]) {
        let input: [UInt8] = [0x02, 0, 0, 0, 0, 0, 4, 0x01, 0, 0, 0, 0] + field
        guard case .invalidMessage(type: 1, let reason) = rtmpError({ _ = try readMessages(input) }) else {
            Issue.record("a chunk size of 0 must be refused")
            return
        }
        #expect(reason.contains("chunk size 0"))
    }

    /// Set Chunk Size and Abort on chunk stream 2 between two chunks of a message on chunk stream 4:
    /// the rest of that message is read at the new size, or the message is dropped.
    @Test(arguments: [1, 7, Int.max])
    func controlBetweenChunksOfAnotherStream(pieceSize: Int) throws {
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 3) }
        var input: [UInt8] = [0x04, 0, 0, 5, 0, 0x01, 0x2C, 0x09, 1, 0, 0, 0]  // fmt=0 csid=4 ts=5 len=300 video
        input += payload[0..<128]
        input += [0x02, 0, 0, 0, 0, 0, 4, 0x01, 0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00]  // Set Chunk Size 256
        input += [0xC4]  // fmt=3 csid=4: the remaining 172 bytes, one chunk at 256
        input += payload[128...]
        input += [0x05, 0, 0, 0, 0, 0x01, 0x2C, 0x08, 1, 0, 0, 0]  // fmt=0 csid=5 len=300 audio
        input += payload[0..<256]
        input += [0x02, 0, 0, 0, 0, 0, 4, 0x02, 0, 0, 0, 0, 0, 0, 0, 5]  // Abort csid 5
        input += [0x45, 0, 0, 1, 0, 0, 2, 0x08, 0xAB, 0xCD]  // fmt=1 csid=5 len=2: a new message after the abort
        let messages = try readMessages(input, pieceSize: pieceSize)
        #expect(messages.map(\.type) == [.setChunkSize, .video, .abort, .audio])
        #expect(messages[1].payload.bytes == payload)
        #expect(messages[1].timestamp == 5)
        #expect(messages[3].payload.bytes == [0xAB, 0xCD])
    }

    @Test func messageLengthLimit() {
        // announces 0xFFFFFF bytes with a 1 MiB limit: rejected from the header alone
        let input: [UInt8] = [0x04, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x09, 1, 0, 0, 0]
        let limits = RTMPChunkReader.Limits(maximumMessageLength: 1 << 20)
        #expect(rtmpError { _ = try readMessages(input, limits: limits) } == .messageTooLong(length: 0xFF_FFFF, limit: 1 << 20))
    }

    @Test func bufferedBytesLimitAcrossStreams() {
        // three chunk streams each start a 1000-byte message; 128 bytes each exceed a 300-byte budget
        var input: [UInt8] = []
        for csid: UInt8 in [4, 5, 6] {
            input += [csid, 0, 0, 0, 0, 0x03, 0xE8, 0x09, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 128)
        }
        let limits = RTMPChunkReader.Limits(maximumBufferedBytes: 300)
        #expect(rtmpError { _ = try readMessages(input, limits: limits) } == .bufferedBytesExceeded(limit: 300))
    }

    @Test func chunkStreamCountLimit() {
        var input: [UInt8] = []
        for csid: UInt8 in 3...6 {
            input += [csid, 0, 0, 0, 0, 0, 0, 0x09, 1, 0, 0, 0]
        }
        let limits = RTMPChunkReader.Limits(maximumChunkStreams: 3)
        #expect(rtmpError { _ = try readMessages(input, limits: limits) } == .tooManyChunkStreams(limit: 3))
    }

    @Test(arguments: [UInt8(0x44), 0x84, 0xC4])
    func continuationWithoutType0(firstByte: UInt8) {
        #expect(rtmpError { _ = try readMessages([firstByte, 0, 0, 0, 0, 0, 0, 0x08]) } == .missingPreviousChunkHeader(chunkStreamID: 4))
    }

    @Test func newHeaderInsideAnIncompleteMessage() {
        let input: [UInt8] =
            [0x04, 0, 0, 0, 0, 0, 200, 0x08, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 128)
            + [0x84, 0, 0, 1]  // fmt=2 while 72 bytes are still due
        #expect(rtmpError { _ = try readMessages(input) } == .interruptedMessage(chunkStreamID: 4))
    }

    @Test func incompleteChunkIsNotConsumed() throws {
        var reader = RTMPChunkReader()
        var buffer = ByteBuffer(Array(Self.splitMessage.prefix(12 + 127)))
        #expect(try reader.decode(buffer: &buffer) == nil)
        #expect(buffer.readerIndex == 0)
        #expect(reader.bufferedBytes == 0)
    }

    // MARK: Round trip with the writer

    @Test(arguments: [128, 4096])
    func writerOutputReadsBack(chunkSize: UInt32) throws {
        var random = SplitMix64(seed: UInt64(chunkSize))
        var messages = [RTMPMessage(RTMPSetChunkSize(chunkSize: chunkSize))]
        var timestamps: [UInt32: UInt32] = [4: 0, 5: 0, 6: 0]
        for index in 0..<200 {
            let csid = UInt32([4, 5, 6][index % 3])
            // mostly forward, sometimes backwards, sometimes past the 24-bit range
            let step = UInt32(random.next() % 50)
            let previous = timestamps[csid] ?? 0
            if index % 17 == 0 {
                timestamps[csid] = 0xFF_FFF0 + step * 10
            } else if index % 23 == 0 {
                timestamps[csid] = step
            } else {
                timestamps[csid] = previous + step
            }
            let length = Int(random.next() % 600)
            messages.append(
                RTMPMessage(
                    chunkStreamID: csid, messageStreamID: UInt32(index % 5 == 0 ? 2 : 1), timestamp: timestamps[csid] ?? 0,
                    type: index % 2 == 0 ? .video : .audio,
                    payload: ByteBuffer((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) })))
        }
        let bytes = try writeChunks(messages)
        #expect(try readMessages(bytes, pieceSize: 97) == messages)
    }
}
