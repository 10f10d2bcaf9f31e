import NIOCore
import Testing
import TestSupport

@testable import RTMP

@Suite("RTMPHandshake")
struct RTMPHandshakeTests {
    static let size = RTMPHandshake.packetSize

    /// Starts a handshake and returns it with its C1.
    func started() throws -> (RTMPHandshake, [UInt8]) {
        var random = SplitMix64(seed: 7)
        var handshake = RTMPHandshake(timestamp: 0x0102_0304, random: &random)
        guard case .send(let c0c1) = handshake.handle(.start) else {
            throw HandshakeTestError.unexpected
        }
        return (handshake, c0c1.bytes.dropFirst().map { $0 })
    }

    enum HandshakeTestError: Error { case unexpected }

    /// S1: time 0x0A0B0C0D, zero, random 0x5A...; S2 echoes `c1`'s time and random.
    func serverReply(echoing c1: [UInt8], version: UInt8 = 3) -> (s0s1s2: [UInt8], s1: [UInt8]) {
        let s1 = [0x0A, 0x0B, 0x0C, 0x0D, 0, 0, 0, 0] + Array(repeating: UInt8(0x5A), count: Self.size - 8)
        let s2 = Array(c1.prefix(4)) + [0, 0, 0, 9] + Array(c1.dropFirst(8))
        return ([version] + s1 + s2, s1)
    }

    @Test func c0c1Layout() throws {
        var random = SplitMix64(seed: 7)
        var handshake = RTMPHandshake(timestamp: 0x0102_0304, random: &random)
        guard case .send(let bytes) = handshake.handle(.start) else {
            Issue.record("no C0+C1")
            return
        }
        #expect(bytes.readableBytes == 1 + Self.size)
        // C0 = version 3; C1 = time 01 02 03 04, zero 00 00 00 00 (asks for the simple handshake)
        #expect(bytes.bytes.prefix(9) == [0x03, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00])
        // random bytes come from the generator, so they differ from zeros
        #expect(bytes.bytes.dropFirst(9).contains { $0 != 0 })
    }

    @Test func fullReplyAtOnceCompletesWithC2AndRemainder() throws {
        var (handshake, c1) = try started()
        let (reply, s1) = serverReply(echoing: c1)
        let extra: [UInt8] = [0x02, 0x00, 0x00]  // first bytes of a chunk the server sent right after S2
        let action = handshake.handle(.received(ByteBuffer(reply + extra), nowMilliseconds: 0x1111_2222))
        guard case .complete(let c2?, let remainder, s2EchoedC1: true) = action else {
            Issue.record("expected completion with C2, got \(action)")
            return
        }
        // C2 = S1 time, our read time, S1 random
        #expect(c2.bytes == Array(s1.prefix(4)) + [0x11, 0x11, 0x22, 0x22] + Array(s1.dropFirst(8)))
        #expect(remainder.bytes == extra)
    }

    @Test func oneByteAtATime() throws {
        var (handshake, c1) = try started()
        let (reply, _) = serverReply(echoing: c1)
        var sentC2 = false
        for (index, byte) in reply.enumerated() {
            let action = handshake.handle(.received(ByteBuffer([byte]), nowMilliseconds: 0))
            switch action {
            case .wait:
                #expect(index != reply.count - 1)
            case .send(let c2):
                // after S0+S1 (1537 bytes), before S2
                #expect(index == Self.size)
                #expect(c2.readableBytes == Self.size)
                sentC2 = true
            case .complete(let c2, let remainder, _):
                #expect(index == reply.count - 1)
                #expect(c2 == nil)
                #expect(remainder.readableBytes == 0)
            case .fail(let error):
                Issue.record("failed at \(index): \(error)")
                return
            }
        }
        #expect(sentC2)
    }

    @Test(arguments: [UInt8(0), 6, 0x16])  // 0x16: a TLS handshake record, i.e. rtmps server reached with rtmp://
    func wrongVersionFails(version: UInt8) throws {
        var (handshake, c1) = try started()
        let (reply, _) = serverReply(echoing: c1, version: version)
        #expect(
            handshake.handle(.received(ByteBuffer(reply), nowMilliseconds: 0))
                == .fail(.handshakeVersionMismatch(received: version)))
        // a failed handshake stays failed
        #expect(handshake.handle(.received(ByteBuffer([0]), nowMilliseconds: 0)) == .fail(.handshakeOutOfOrder))
    }

    /// A digest-handshake server's S2 is no echo of C1; FFmpeg and librtmp publish to it all the same.
    @Test(arguments: [8, 100, RTMPHandshake.packetSize - 1])
    func s2NotEchoingC1IsAcceptedAndReported(corruptedOffset: Int) throws {
        var (handshake, c1) = try started()
        var (reply, s1) = serverReply(echoing: c1)
        reply[1 + Self.size + corruptedOffset] ^= 0xFF
        let action = handshake.handle(.received(ByteBuffer(reply), nowMilliseconds: 7))
        guard case .complete(let c2?, let remainder, s2EchoedC1: false) = action else {
            Issue.record("expected completion reporting no echo, got \(action)")
            return
        }
        #expect(c2.bytes == Array(s1.prefix(4)) + [0, 0, 0, 7] + Array(s1.dropFirst(8)))
        #expect(remainder.readableBytes == 0)
    }

    @Test func s2TimeFieldsAreNotChecked() throws {
        // servers fill S2's time fields inconsistently; only the random echo proves the handshake
        var (handshake, c1) = try started()
        var (reply, _) = serverReply(echoing: c1)
        for offset in 0..<8 { reply[1 + Self.size + offset] = 0xEE }
        guard case .complete = handshake.handle(.received(ByteBuffer(reply), nowMilliseconds: 0)) else {
            Issue.record("time fields of S2 should not matter")
            return
        }
    }

    @Test func eventsOutOfOrder() throws {
        var random = SplitMix64(seed: 1)
        var handshake = RTMPHandshake(timestamp: 0, random: &random)
        #expect(handshake.handle(.received(ByteBuffer([3]), nowMilliseconds: 0)) == .fail(.handshakeOutOfOrder))
        var (started, _) = try started()
        #expect(started.handle(.start) == .fail(.handshakeOutOfOrder))
    }
}
