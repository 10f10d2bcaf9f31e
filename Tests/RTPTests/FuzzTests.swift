import NIOCore
import Testing
import TestSupport
@testable import RTP

/// Seeded fuzzing: random datagrams and mutations of valid ones. The decoders' typed throws already
/// guarantee only `RTPError` escapes; these tests add that nothing traps (overflow, bad index), hangs
/// or grows without bound, and that whatever decodes re-encodes to something that decodes the same.
@Suite("Fuzz")
struct FuzzTests {
    static let iterations = 20_000

    static var seeds: [ByteBuffer] {
        rtpVectors.map(\.wire) + RTCPSamples.vectors.map(\.wire)
    }

    /// Random bytes, or a valid vector with a few bytes flipped, cut or extended.
    static func sample(using generator: inout SplitMix64) -> ByteBuffer {
        let seeds = Self.seeds
        if Bool.random(using: &generator) {
            let length = Int.random(in: 0...64, using: &generator)
            return ByteBuffer(bytes: (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        }
        var bytes = Array(seeds[Int.random(in: 0..<seeds.count, using: &generator)].readableBytesView)
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: .min ... .max, using: &generator)
            case 1 where !bytes.isEmpty:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
            default:
                bytes.append(UInt8.random(in: .min ... .max, using: &generator))
            }
        }
        return ByteBuffer(bytes: bytes)
    }

    @Test func rtpPacketDecoder() throws {
        var generator = SplitMix64(seed: 0x5254_5020)
        var decoded = 0
        for _ in 0..<Self.iterations {
            var buffer = Self.sample(using: &generator)
            guard let packet = try? RTPPacket(from: &buffer) else { continue }
            decoded += 1
            var again = encode(packet.write)
            #expect(try RTPPacket(from: &again) == packet)
        }
        #expect(decoded > 0, "mutations of valid vectors must sometimes decode")
    }

    @Test func rtcpCompoundDecoder() throws {
        var generator = SplitMix64(seed: 0x5254_4350)
        var decoded = 0
        for _ in 0..<Self.iterations {
            var buffer = Self.sample(using: &generator)
            guard let compound = try? RTCPCompoundPacket(from: &buffer) else { continue }
            decoded += 1
            #expect(compound.encodedSize % 4 == 0)
            var again = encode(compound.write)
            #expect(try RTCPCompoundPacket(from: &again).encodedSize == compound.encodedSize)
        }
        #expect(decoded > 0)
    }

    @Test func h264DepacketizerStaysBounded() throws {
        var generator = SplitMix64(seed: 0x4832_3634)
        let limit = 64 * 1024
        var depacketizer = H264Depacketizer(maxAccessUnitSize: limit)
        var sequenceNumber: UInt16 = 0
        var units = 0
        for _ in 0..<Self.iterations {
            // Mostly valid-looking headers: FU-A, STAP-A or single NAL types, random flags and bodies.
            let type = [1, 5, 7, 24, 28, 28, 28, 25, 0].randomElement(using: &generator) ?? 1
            var payload = [UInt8(0x60 | type)]
            payload += (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            sequenceNumber &+= UInt16.random(in: 0...2, using: &generator) == 0 ? 2 : 1
            let packet = RTPPacket(
                header: try RTPHeader(
                    marker: Int.random(in: 0..<8, using: &generator) == 0, payloadType: 96,
                    sequenceNumber: sequenceNumber, timestamp: UInt32(sequenceNumber / 16), ssrc: 1
                ),
                payload: ByteBuffer(bytes: payload)
            )
            guard let outputs = try? depacketizer.push(packet) else { continue }
            for case .accessUnit(let unit) in outputs {
                units += 1
                #expect(unit.nalUnits.reduce(0) { $0 + $1.readableBytes } <= limit)
                #expect(unit.nalUnits.allSatisfy { $0.readableBytes > 0 })
            }
        }
        #expect(units > 0)
    }

    @Test func payloaderDepacketizerRoundTrip() throws {
        var generator = SplitMix64(seed: 0x5061_796C)
        for round in 0..<200 {
            let maximum = Int.random(in: 3...300, using: &generator)
            var packetizer = try RTPPacketizer(
                ssrc: 1, payloadType: 96, payloader: try H264Payloader(maxPayloadSize: maximum),
                sequencer: RTPSequencer(using: &generator), timestampOffset: 0
            )
            var depacketizer = H264Depacketizer()
            // NAL types 1…23 with random NRI; F=0; SPS/PPS/IDR kept out (the payloader would add cached sets).
            let nalUnits = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                let type = [1, 2, 6, 9, 12].randomElement(using: &generator) ?? 1
                let header = UInt8(Int.random(in: 0...3, using: &generator) << 5 | type)
                let body = (0..<Int.random(in: 0...700, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                return ByteBuffer(bytes: [header] + body)
            }
            let packets = try packetizer.packetize(nalUnits, captureTimeNanos: Int64(round) * 33_333_333)
            #expect(packets.allSatisfy { $0.payload.readableBytes <= maximum })
            var outputs: [H264DepacketizerOutput] = []
            for packet in packets { outputs += try depacketizer.push(packet) }
            #expect(outputs == [.accessUnit(H264AccessUnit(rtpTimestamp90k: packets[0].header.timestamp, nalUnits: nalUnits))])
        }
    }

    @Test func annexBSplitNeverTraps() {
        var generator = SplitMix64(seed: 0x414E_4E42)
        for _ in 0..<Self.iterations {
            // Bias toward zeros and ones so start codes appear.
            let bytes: [UInt8] = (0..<Int.random(in: 0...32, using: &generator)).map { _ in
                let choices: [UInt8] = [0, 0, 0, 1, UInt8.random(in: .min ... .max, using: &generator)]
                return choices.randomElement(using: &generator) ?? 0
            }
            guard let units = try? H264AnnexB.split(ByteBuffer(bytes: bytes)) else { continue }
            #expect(units.allSatisfy { $0.readableBytes > 0 })
            #expect(units.reduce(0) { $0 + $1.readableBytes } <= bytes.count)
        }
    }
}
