import NIOCore
import Testing
import TestSupport

@testable import RTMP

/// Seeded fuzzing of every decoder that reads peer-controlled bytes: random input and mutations of valid
/// messages must end in a value or an `RTMPError`, never a crash, a hang, or unbounded buffering.
@Suite("Fuzz")
struct FuzzTests {
    static let iterations = 20_000

    // MARK: Corpus of valid encodings

    static let chunkCorpus: [[UInt8]] = {
        let url = try! RTMPURL("rtmp://host/app/key")
        var messages = [
            RTMPMessage(RTMPSetChunkSize(chunkSize: 64)),
            RTMPMessage(RTMPCommand.connect(RTMPConnectParameters(url: url, fourCCList: [.hvc1]), transactionID: 1), chunkStreamID: 3),
            RTMPMessage(RTMPUserControlEvent.pingRequest(timestamp: 5)),
            RTMPMessage(RTMPAbort(chunkStreamID: 6)),
        ]
        for index in 0..<6 {
            messages.append(
                RTMPMessage(
                    chunkStreamID: index % 2 == 0 ? 4 : 6, messageStreamID: 1, timestamp: UInt32(index) * 0x40_0000,
                    type: index % 2 == 0 ? .audio : .video, payload: ByteBuffer([UInt8](repeating: UInt8(index), count: 50 + index * 40))))
        }
        let whole = (try? writeChunks(messages)) ?? []
        let single = messages.compactMap { try? writeChunks([$0]) }
        return [whole] + single
    }()

    static let amfCorpus: [[UInt8]] = AMF0ValueTests.vectors.map(\.bytes) + [
        RTMPCommand.connect(RTMPConnectParameters(app: "a", tcURL: "rtmp://h/a", fourCCList: [.av01], capabilities: .reconnect), transactionID: 1).encoded().bytes,
        FLVMetadata(width: 1, height: 2, isStereo: true, encoder: "e").encoded().bytes,
    ]

    static let flvCorpus: [[UInt8]] = FLVTagTests.videoVectors.map(\.bytes) + FLVTagTests.audioVectors.map(\.1)

    static func pick(_ corpus: [[UInt8]], _ mutator: inout Mutator) -> [UInt8] {
        corpus[mutator.int(corpus.count)]
    }

    /// Either fresh random bytes or a mutation of a corpus entry.
    static func input(from corpus: [[UInt8]], _ mutator: inout Mutator, maximumRandomLength: Int = 64) -> [UInt8] {
        if mutator.int(4) == 0 {
            return mutator.bytes(count: mutator.int(maximumRandomLength))
        }
        return mutator.mutate(pick(corpus, &mutator), other: pick(corpus, &mutator))
    }

    // MARK: Chunk reader

    @Test func chunkReader() {
        var mutator = Mutator(seed: 1)
        let limits = RTMPChunkReader.Limits(maximumMessageLength: 2048, maximumChunkStreams: 8, maximumBufferedBytes: 4096)
        let largestHeader = 3 + 11 + 4
        var messagesSeen = 0
        for _ in 0..<Self.iterations {
            let input = Self.input(from: Self.chunkCorpus, &mutator, maximumRandomLength: 256)
            var reader = RTMPChunkReader(limits: limits)
            var buffer = ByteBuffer()
            var offset = 0
            do {
                while offset < input.count {
                    let end = min(input.count, offset + 1 + mutator.int(64))
                    buffer.writeBytes(input[offset..<end])
                    offset = end
                    while try reader.decode(buffer: &buffer) != nil {
                        messagesSeen += 1
                    }
                    // bounded state: at most one incomplete chunk waits in the input, partial messages within budget
                    #expect(reader.bufferedBytes <= limits.maximumBufferedBytes)
                    #expect(buffer.readableBytes < largestHeader + reader.chunkSize)
                    #expect(reader.chunkSize <= limits.maximumMessageLength)
                }
            } catch is RTMPError {
                continue
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
        // the mutations must leave enough valid input to exercise the success path
        #expect(messagesSeen > Self.iterations / 2)
    }

    @Test func chunkReaderThroughNIOProcessorOneByteAtATime() throws {
        var mutator = Mutator(seed: 2)
        for _ in 0..<(Self.iterations / 10) {
            let input = Self.input(from: Self.chunkCorpus, &mutator)
            let whole = rtmpOutcome { try readMessages(input) }
            let bytewise = rtmpOutcome { try readMessages(input, pieceSize: 1) }
            // feeding byte by byte must not change what is decoded
            #expect(whole == bytewise)
        }
    }

    // MARK: AMF0 and commands

    @Test func amf0() {
        var mutator = Mutator(seed: 3)
        var decoded = 0
        for _ in 0..<Self.iterations {
            var buffer = ByteBuffer(Self.input(from: Self.amfCorpus, &mutator))
            if case .success(let value)? = rtmpOutcome({ try AMF0Value(from: &buffer) }) {
                decoded += 1
                // encoding normalises (ECMA count, string form); after that it is a fixpoint
                var first = ByteBuffer()
                value.write(to: &first)
                var reread = first
                var second = ByteBuffer()
                (try? AMF0Value(from: &reread))?.write(to: &second)
                #expect(first == second)
            }
            var commandBuffer = ByteBuffer(Self.input(from: Self.amfCorpus, &mutator))
            _ = rtmpOutcome { _ = try RTMPCommand(from: &commandBuffer) }
            var metadataBuffer = ByteBuffer(Self.input(from: Self.amfCorpus, &mutator))
            _ = rtmpOutcome { _ = try FLVMetadata(from: &metadataBuffer) }
        }
        #expect(decoded > Self.iterations / 10)
    }

    // MARK: FLV

    @Test func flvTags() {
        var mutator = Mutator(seed: 4)
        for _ in 0..<Self.iterations {
            let input = Self.input(from: Self.flvCorpus, &mutator, maximumRandomLength: 16)
            var video = ByteBuffer(input)
            if case .success(let tag)? = rtmpOutcome({ try FLVVideoTag(from: &video) }) {
                var encoded = ByteBuffer()
                tag.write(to: &encoded)
                #expect(encoded.readableBytes == tag.encodedSize)
                #expect((try? FLVVideoTag(from: &encoded)) == tag)
            }
            var audio = ByteBuffer(input)
            if case .success(let tag)? = rtmpOutcome({ try FLVAudioTag(from: &audio) }) {
                var encoded = ByteBuffer()
                tag.write(to: &encoded)
                #expect((try? FLVAudioTag(from: &encoded)) == tag)
            }
            _ = rtmpOutcome { _ = try FLVVideoPacket.nalUnits(in: ByteBuffer(input)) }
        }
    }

    // MARK: Handshake

    @Test func handshake() {
        var mutator = Mutator(seed: 5)
        let size = RTMPHandshake.packetSize
        for iteration in 0..<(Self.iterations / 10) {
            var random = SplitMix64(seed: UInt64(iteration))
            var handshake = RTMPHandshake(timestamp: 0, random: &random)
            guard case .send(let c0c1) = handshake.handle(.start) else {
                Issue.record("no C0+C1")
                return
            }
            let c1 = Array(c0c1.bytes.dropFirst())
            let valid = [3] + mutator.bytes(count: size) + c1
            // either random garbage or one byte of the valid reply changed
            let reply: [UInt8]
            var changedOffset: Int?
            if mutator.int(3) == 0 {
                reply = mutator.bytes(count: mutator.int(2 * size + 10))
            } else {
                var changed = valid
                let offset = mutator.int(valid.count)
                changed[offset] ^= UInt8(1 + mutator.int(255))
                reply = changed
                changedOffset = offset
            }
            var offset = 0
            var outcome: RTMPHandshake.Action = .wait
            while offset < reply.count {
                let end = min(reply.count, offset + 1 + mutator.int(700))
                outcome = handshake.handle(.received(ByteBuffer(bytes: reply[offset..<end]), nowMilliseconds: 0))
                offset = end
                if case .fail = outcome { break }
                if case .complete = outcome { break }
            }
            guard let changedOffset else { continue }
            switch changedOffset {
            case 0:
                #expect(outcome == .fail(.handshakeVersionMismatch(received: reply[0])))
            case 1...size:
                // S1 is the server's business: only echoed, never checked
                guard case .complete = outcome else {
                    Issue.record("S1 change at \(changedOffset) broke the handshake: \(outcome)")
                    continue
                }
            case (size + 1)..<(size + 9):
                guard case .complete = outcome else {
                    Issue.record("S2 time change at \(changedOffset) broke the handshake: \(outcome)")
                    continue
                }
            default:
                guard case .complete(_, _, s2EchoedC1: false) = outcome else {
                    Issue.record("S2 echo change at \(changedOffset) should complete, reporting no echo: \(outcome)")
                    continue
                }
            }
        }
    }
}

/// The value or `RTMPError` a decode ends in; `nil` (and a recorded issue) for any other error.
func rtmpOutcome<T>(_ body: () throws -> T) -> Result<T, RTMPError>? {
    do {
        return .success(try body())
    } catch let error as RTMPError {
        return .failure(error)
    } catch {
        Issue.record("untyped error \(error)")
        return nil
    }
}
