import NIOCore
import Testing
import TestSupport
@testable import WebRTC

/// Seeded fuzzing of everything that parses peer input: random bytes and mutations of real
/// vectors. Typed throws already guarantee only `WebRTCError` escapes; these add that nothing traps
/// (overflow, bad index), hangs or grows without bound, and that what parses re-serializes to
/// something that parses the same.
@Suite("Fuzz")
struct FuzzTests {
    static let iterations = 3000

    static func mutate(_ input: [UInt8], using generator: inout SplitMix64, alphabet: [UInt8]? = nil) -> [UInt8] {
        var bytes = input
        let byte = { (generator: inout SplitMix64) -> UInt8 in
            alphabet.map { $0[Int.random(in: 0..<$0.count, using: &generator)] } ?? UInt8.random(in: .min ... .max, using: &generator)
        }
        for _ in 0..<Int.random(in: 1...8, using: &generator) {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = byte(&generator)
            case 1 where !bytes.isEmpty:
                let start = Int.random(in: 0..<bytes.count, using: &generator)
                bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...16, using: &generator)))
            case 2 where !bytes.isEmpty:
                let start = Int.random(in: 0..<bytes.count, using: &generator)
                let slice = bytes[start..<min(bytes.count, start + Int.random(in: 1...32, using: &generator))]
                bytes.insert(contentsOf: slice, at: Int.random(in: 0...bytes.count, using: &generator))
            default:
                bytes.insert(byte(&generator), at: Int.random(in: 0...bytes.count, using: &generator))
            }
        }
        return bytes
    }

    /// SDP-looking characters, so mutations reach the attribute parsers rather than the line check.
    static let sdpAlphabet = Array("aAvmoctsb=:;/ -0123456789\r\n*.fxyz".utf8)

    @Test func sdpParser() throws {
        let seeds = try ["chromium-156-recvonly-offer.sdp", "aiortc-1.16-recvonly-offer.sdp"].map { Array(try fixture($0).utf8) }
        var generator = SplitMix64(seed: 0x5344_5000)
        var parsed = 0
        for iteration in 0..<Self.iterations / 3 {
            let seed = seeds[iteration % seeds.count]
            let input = iteration % 10 == 0
                ? (0..<Int.random(in: 0...256, using: &generator)).map { _ in Self.sdpAlphabet.randomElement(using: &generator) ?? 0 }
                : Self.mutate(seed, using: &generator, alphabet: iteration % 3 == 0 ? nil : Self.sdpAlphabet)
            guard let description = try? SessionDescription(parsing: String(decoding: input, as: UTF8.self)) else { continue }
            parsed += 1
            #expect(try SessionDescription(parsing: description.sdp) == description)
        }
        #expect(parsed > 0, "mutations of real offers must sometimes still parse")
    }

    @Test func answererOnMutatedOffers() throws {
        let seed = Array(try fixture("chromium-156-recvonly-offer.sdp").utf8)
        var generator = SplitMix64(seed: 0x414E_5357)
        let answerer = WebRTCAnswerer(capabilities: SenderCapabilities(), sources: NegotiationTests.sources, transport: NegotiationTests.transport)
        for _ in 0..<300 {
            let input = Self.mutate(seed, using: &generator, alphabet: Self.sdpAlphabet)
            guard let offer = try? SessionDescription(parsing: String(decoding: input, as: UTF8.self)),
                  let (answer, _) = try? answerer.answer(offer, sessionID: 1) else { continue }
            #expect(try SessionDescription(parsing: answer.sdp) == answer)
        }
    }

    @Test func stunDecoder() throws {
        var generator = SplitMix64(seed: 0x5354_554E)
        let seeds = [Array(STUNMessageTests.sampleRequest.readableBytesView)]
        var decoded = 0
        for iteration in 0..<Self.iterations * 3 {
            let input = iteration % 4 == 0
                ? (0..<Int.random(in: 0...96, using: &generator)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                : Self.mutate(seeds[0], using: &generator)
            var buffer = ByteBuffer(bytes: input)
            _ = try? STUNMessage.checkFingerprint(of: buffer)
            _ = try? STUNMessage.checkIntegrity(of: buffer, key: STUNMessageTests.samplePassword)
            guard let message = try? STUNMessage(from: &buffer) else { continue }
            decoded += 1
            var again = ByteBuffer()
            message.write(to: &again)
            #expect(try STUNMessage(from: &again) == message)
        }
        #expect(decoded > 0)
    }

    @Test func iceLiteAgentOnMutatedChecks() throws {
        var generator = SplitMix64(seed: 0x4C49_5445)
        var agent = ICELiteAgentTests.agent()
        let seed = Array(try ICELiteAgentTests.check(useCandidate: true).readableBytesView)
        for iteration in 0..<Self.iterations {
            let input = Self.mutate(seed, using: &generator)
            _ = agent.handle(.datagram(ByteBuffer(bytes: input), from: ICELiteAgentTests.browser, nowNanos: UInt64(iteration)))
        }
        #expect(agent.state != .expired)
    }
}
