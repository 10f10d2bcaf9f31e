import NIOCore

/// The client side of the simple RTMP handshake (RTMP spec §5.2), as a state machine without I/O.
///
/// ```
///  Client                         Server
///  C0 (version 3) + C1  ───────▶
///                       ◀───────  S0 (version 3) + S1 + S2
///  C2 (echo of S1)      ───────▶
/// ```
/// C1/S1/S2/C2 are 1536 bytes each (§5.2.3, §5.2.4):
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                        time (4 bytes)                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |              zero (C1/S1) or time2 (C2/S2) (4 bytes)          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   random bytes (1528 bytes) ...               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// A zero second field in C1 asks servers (nginx-rtmp, SRS) for this simple handshake rather than the digest one.
///
/// S2 is read but not required to echo C1: servers that answer with the digest (FP9) handshake build S2
/// from a digest instead, and FFmpeg's publisher and librtmp accept it too. `complete` says whether it
/// echoed, for a debug log.
///
/// Bytes the server sends after S2 (it may start chunking at once) come back in `.complete(send:remainder:)`
/// and must be fed to the chunk reader.
public struct RTMPHandshake: Sendable {
    public static let version: UInt8 = 3
    public static let packetSize = 1536
    static let secondTimeOffset = 4
    static let randomOffset = 8
    static let randomSize = packetSize - randomOffset

    public enum Event: Sendable, Equatable {
        /// Begin: yields C0+C1.
        case start
        /// Bytes from the server; `nowMilliseconds` is our clock when they were read (C2's time2 field).
        case received(ByteBuffer, nowMilliseconds: UInt32)
    }

    public enum Action: Sendable, Equatable {
        /// Write these bytes; the handshake continues.
        case send(ByteBuffer)
        /// Nothing to do until more bytes arrive.
        case wait
        /// The handshake is over. Write `send` if present, then give `remainder` to the chunk reader.
        /// `s2EchoedC1` is false for a server whose S2 is not an echo of C1 (a digest handshake).
        case complete(send: ByteBuffer?, remainder: ByteBuffer, s2EchoedC1: Bool)
        /// The server is not speaking RTMP as expected; close the connection.
        case fail(RTMPError)
    }

    private enum State: Sendable {
        case idle
        case awaitingServerHello
        case awaitingS2
        case done
        case failed
    }

    private var state = State.idle
    private let c1: ByteBuffer
    private var received = ByteBuffer()

    /// - Parameters:
    ///   - timestamp: C1's time field: our epoch in milliseconds (usually 0).
    ///   - random: the source of C1's 1528 random bytes; tests pass a seeded generator.
    public init(timestamp: UInt32, random: inout some RandomNumberGenerator) {
        var c1 = ByteBuffer()
        c1.reserveCapacity(Self.packetSize)
        c1.writeInteger(timestamp)
        c1.writeInteger(UInt32(0))
        for _ in 0..<(Self.randomSize / 8) {
            c1.writeInteger(random.next() as UInt64)
        }
        self.c1 = c1
    }

    public mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        case (.idle, .start):
            state = .awaitingServerHello
            var out = ByteBuffer()
            out.reserveCapacity(1 + Self.packetSize)
            out.writeInteger(Self.version)
            out.writeImmutableBuffer(c1)
            return .send(out)
        case (.awaitingServerHello, .received(var bytes, let now)), (.awaitingS2, .received(var bytes, let now)):
            received.writeBuffer(&bytes)
            return advance(nowMilliseconds: now)
        case (.failed, _), (.done, _), (.idle, .received), (.awaitingServerHello, .start), (.awaitingS2, .start):
            return fail(.handshakeOutOfOrder)
        }
    }

    private mutating func advance(nowMilliseconds: UInt32) -> Action {
        var c2: ByteBuffer?
        if state == .awaitingServerHello {
            guard received.readableBytes >= 1 + Self.packetSize,
                let version = received.readInteger(as: UInt8.self),
                let s1 = received.readSlice(length: Self.packetSize)
            else { return .wait }
            guard version == Self.version else { return fail(.handshakeVersionMismatch(received: version)) }
            c2 = Self.makeC2(echoing: s1, nowMilliseconds: nowMilliseconds)
            state = .awaitingS2
        }
        guard let s2 = received.readSlice(length: Self.packetSize) else {
            return c2.map { .send($0) } ?? .wait
        }
        let echoed = s2.readableBytesView.dropFirst(Self.randomOffset) == c1.readableBytesView.dropFirst(Self.randomOffset)
        state = .done
        let remainder = received
        received = ByteBuffer()
        return .complete(send: c2, remainder: remainder, s2EchoedC1: echoed)
    }

    /// C2: S1's time, the time we read S1, S1's random bytes (§5.2.4).
    private static func makeC2(echoing s1: ByteBuffer, nowMilliseconds: UInt32) -> ByteBuffer {
        var c2 = ByteBuffer()
        c2.reserveCapacity(packetSize)
        c2.writeBytes(s1.readableBytesView.prefix(secondTimeOffset))
        c2.writeInteger(nowMilliseconds)
        c2.writeBytes(s1.readableBytesView.dropFirst(randomOffset))
        return c2
    }

    private mutating func fail(_ error: RTMPError) -> Action {
        state = .failed
        received = ByteBuffer()
        return .fail(error)
    }
}
