import TestSupport
import Foundation
import NIOCore
import RTP

/// The receiving side of the loss test, built from the RTP module: tracks sequence numbers,
/// NACKs the missing ones (again every `retryInterval` until they arrive), notices H.264 key
/// frames and can send a PLI. A real receiver's jitter buffer does the same bookkeeping.
struct NACKReceiver {
    static let receiverSSRC: UInt32 = 0x7E57_0001
    static let retryIntervalSeconds = 0.1
    static let maxAttempts = 10

    let socket: LoopbackUDPSocket
    let feedbackPort: Int
    private(set) var mediaSSRC: UInt32?
    private(set) var received = 0
    private(set) var repaired = 0
    private(set) var nacksSent = 0
    /// Times (seconds since `start`) at which new IDR frames began to arrive (retransmissions not counted).
    private(set) var keyFrameTimes: [Double] = []
    private var keyFrameTimestamps: Set<UInt32> = []
    /// Each key frame's RTP timestamp, in the order they arrived: media time, which a busy machine
    /// does not stretch the way it stretches arrival times.
    private(set) var keyFrameRTPTimestamps: [UInt32] = []
    /// The newest RTP timestamp received.
    private(set) var latestTimestamp: UInt32?
    /// Extended sequence number → (time first missed, time last NACKed, attempts).
    private(set) var missing: [Int: (since: Double, lastNACK: Double?, attempts: Int)] = [:]
    private var highest: Int?
    let start = Date()

    init(socket: LoopbackUDPSocket, feedbackPort: Int) {
        self.socket = socket
        self.feedbackPort = feedbackPort
    }

    var now: Double { Date().timeIntervalSince(start) }

    /// Receives for up to `seconds`, NACKing as it goes, or until `done` holds.
    mutating func run(seconds: Double, until done: (Self) -> Bool = { _ in false }) throws {
        let end = now + seconds
        while now < end, !done(self) {
            if let (bytes, _) = socket.receive(timeoutSeconds: 0.01) { try handle(bytes) }
            try sendNACKs()
        }
    }

    /// Missing packets first seen at least `age` seconds ago: what NACKs failed to repair.
    func unrepaired(olderThan age: Double) -> [Int] { missing.filter { now - $0.value.since > age }.keys.sorted() }

    mutating func sendPLI() throws {
        guard let mediaSSRC else { return }
        try send([.pictureLossIndication(PictureLossIndication(senderSSRC: Self.receiverSSRC, mediaSSRC: mediaSSRC))])
    }

    private mutating func handle(_ bytes: [UInt8]) throws {
        var buffer = ByteBuffer(bytes: bytes)
        guard RTPDemultiplexedPacketKind(datagram: buffer) == .rtp else { return }
        let packet = try RTPPacket(from: &buffer)
        mediaSSRC = packet.header.ssrc
        received += 1
        if Self.startsKeyFrame(packet.payload), keyFrameTimestamps.insert(packet.header.timestamp).inserted {
            keyFrameTimes.append(now)
            keyFrameRTPTimestamps.append(packet.header.timestamp)
        }
        if latestTimestamp.map({ Int32(bitPattern: packet.header.timestamp &- $0) > 0 }) ?? true { latestTimestamp = packet.header.timestamp }
        let sequence = Int(packet.header.sequenceNumber)
        guard let last = highest else {
            highest = sequence
            return
        }
        // Extend the 16-bit number to the one nearest the highest seen.
        let extended = last + Int(Int16(truncatingIfNeeded: sequence - last))
        if extended > last {
            for lost in (last + 1)..<extended { missing[lost] = (now, nil, 0) }
            highest = extended
        } else if missing.removeValue(forKey: extended) != nil {
            repaired += 1
        }
    }

    private mutating func sendNACKs() throws {
        let due = missing.filter { entry in
            entry.value.attempts < Self.maxAttempts && entry.value.lastNACK.map { now - $0 >= Self.retryIntervalSeconds } ?? true
        }.keys.sorted()
        guard !due.isEmpty, let mediaSSRC else { return }
        let time = now
        for sequence in due {
            missing[sequence]?.lastNACK = time
            missing[sequence]?.attempts += 1
        }
        let nack = try GenericNACK(senderSSRC: Self.receiverSSRC, mediaSSRC: mediaSSRC,
                                   lostSequenceNumbers: due.map { UInt16(truncatingIfNeeded: $0) })
        try send([.genericNACK(nack)])
        nacksSent += 1
    }

    /// RR + feedback: an RFC 3550 compound packet, as a full-RTCP receiver sends it.
    private func send(_ feedback: [RTCPPacket]) throws {
        let compound = RTCPCompoundPacket(packets: [.receiverReport(try ReceiverReport(ssrc: Self.receiverSSRC))] + feedback)
        var buffer = ByteBuffer()
        compound.write(to: &buffer)
        socket.send(Array(buffer.readableBytesView), toPort: feedbackPort)
    }

    /// An IDR slice alone, an aggregate holding an SPS or IDR, or the first FU-A fragment of an IDR.
    static func startsKeyFrame(_ payload: ByteBuffer) -> Bool {
        guard let indicator = payload.getInteger(at: payload.readerIndex, as: UInt8.self) else { return false }
        switch indicator & 0x1F {
        case 5, 7: return true
        case 24:
            let first = payload.getInteger(at: payload.readerIndex + 3, as: UInt8.self) ?? 0
            return [5, 7].contains(first & 0x1F)
        case 28:
            let header = payload.getInteger(at: payload.readerIndex + 1, as: UInt8.self) ?? 0
            return header & 0x80 != 0 && header & 0x1F == 5
        default: return false
        }
    }
}
