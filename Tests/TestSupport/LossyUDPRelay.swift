import Foundation
import Synchronization

/// A UDP relay on 127.0.0.1 that loses a fraction of the packets, as a bad network would. It
/// forwards everything that arrives to `targetPort` (the peer that listens on a known port: an RTP
/// receiver, or livepush's WebRTC port) and sends what the target answers back to whoever spoke
/// last. Only media packets are ever lost, in the chosen directions: by default RTP and RTCP (first
/// byte 128–191, RFC 7983), so STUN and DTLS always pass and a test measures media repair, not
/// handshake retries; for SRT, its data packets (first byte 0–127), so handshakes, ACKs and NAKs
/// pass. With `delaySeconds` every packet that passes arrives that much later (a long path). It runs
/// on its own thread until ``stop()`` or its deadline, whichever comes first.
public final class LossyUDPRelay: Sendable {
    /// The ways a packet can go through the relay.
    public struct Directions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// From the peer that sent first to the target.
        public static let toTarget = Directions(rawValue: 1)
        /// From the target back to that peer.
        public static let fromTarget = Directions(rawValue: 2)
    }

    /// A stretch in which every RTP/RTCP packet of one direction is lost, as when a link goes down.
    public struct Outage: Sendable {
        public var direction: Directions
        /// Seconds after the first RTP/RTCP packet in that direction.
        public var startSeconds: Double
        public var durationSeconds: Double

        public init(direction: Directions, startSeconds: Double, durationSeconds: Double) {
            self.direction = direction
            self.startSeconds = startSeconds
            self.durationSeconds = durationSeconds
        }
    }

    /// Packets passed and lost in one direction.
    public struct Counts: Sendable {
        public var forwarded = 0
        public var dropped = 0
    }

    /// Where the other peer sends; the target's packets also come in here.
    public let socket: LoopbackUDPSocket
    private let targetPort: Int
    private let lossPercent: Int
    private let lossy: Directions
    private let outage: Outage?
    private let lossyFirstBytes: ClosedRange<UInt8>
    private let delaySeconds: Double
    private let running = Atomic<Bool>(true)
    private let counters = Mutex((toTarget: Counts(), fromTarget: Counts()))
    private let finished = Atomic<Bool>(false)

    /// RTP and RTCP (RFC 7983's demultiplexing range), the default lossy packets.
    public static let rtpFirstBytes: ClosedRange<UInt8> = 128...191
    /// SRT data packets (the first bit clear); control packets have it set.
    public static let srtDataFirstBytes: ClosedRange<UInt8> = 0...127

    public init(port: Int, targetPort: Int, lossPercent: Int, lossy: Directions, outage: Outage? = nil, deadlineSeconds: Double,
                lossyFirstBytes: ClosedRange<UInt8> = LossyUDPRelay.rtpFirstBytes, delaySeconds: Double = 0) throws {
        socket = try LoopbackUDPSocket(port: port)
        self.targetPort = targetPort
        self.lossPercent = lossPercent
        self.lossy = lossy
        self.outage = outage
        self.lossyFirstBytes = lossyFirstBytes
        self.delaySeconds = delaySeconds
        let thread = Thread { [self] in run(deadline: Date().addingTimeInterval(deadlineSeconds)) }
        thread.start()
    }

    public var toTarget: Counts { counters.withLock { $0.toTarget } }
    public var fromTarget: Counts { counters.withLock { $0.fromTarget } }

    /// Stops the thread and waits (bounded) for it.
    public func stop() {
        running.store(false, ordering: .releasing)
        let deadline = Date().addingTimeInterval(2)
        while !finished.load(ordering: .acquiring), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// The n-th RTP/RTCP packet of a lossy direction is lost when `n × 19 mod 100 < lossPercent`:
    /// exactly that share, scattered evenly but not periodically within each 100 packets, and the
    /// same pattern every run.
    private func run(deadline: Date) {
        var peerPort: Int?
        var index = (toTarget: 0, fromTarget: 0)
        var outageStart: Date?
        /// Packets held back by `delaySeconds`, in arrival (and so in due) order.
        var delayed: [(due: Date, bytes: [UInt8], port: Int)] = []
        var delayedHead = 0
        while running.load(ordering: .acquiring), Date() < deadline {
            let now = Date()
            while delayedHead < delayed.count, delayed[delayedHead].due <= now {
                socket.send(delayed[delayedHead].bytes, toPort: delayed[delayedHead].port)
                delayedHead += 1
            }
            if delayedHead > 1024 { delayed.removeFirst(delayedHead); delayedHead = 0 }
            let wait = delayedHead < delayed.count ? min(0.05, max(0.001, delayed[delayedHead].due.timeIntervalSince(now))) : 0.05
            guard let (bytes, from) = socket.receive(timeoutSeconds: wait) else { continue }
            let fromTarget = from == targetPort
            let direction: Directions = fromTarget ? .fromTarget : .toTarget
            if !fromTarget { peerPort = from }
            guard let destination = fromTarget ? peerPort : targetPort else { continue }
            var lose = false
            if let first = bytes.first, lossyFirstBytes.contains(first) {
                if let outage, outage.direction.contains(direction) {
                    let start = outageStart ?? Date().addingTimeInterval(outage.startSeconds)
                    outageStart = start
                    let elapsed = Date().timeIntervalSince(start)
                    lose = elapsed >= 0 && elapsed < outage.durationSeconds
                }
                if lossy.contains(direction) {
                    let n = fromTarget ? index.fromTarget : index.toTarget
                    lose = lose || n * 19 % 100 < lossPercent
                    if fromTarget { index.fromTarget += 1 } else { index.toTarget += 1 }
                }
            }
            if !lose {
                if delaySeconds > 0 {
                    delayed.append((Date().addingTimeInterval(delaySeconds), bytes, destination))
                } else {
                    socket.send(bytes, toPort: destination)
                }
            }
            counters.withLock { counts in
                if fromTarget {
                    if lose { counts.fromTarget.dropped += 1 } else { counts.fromTarget.forwarded += 1 }
                } else {
                    if lose { counts.toTarget.dropped += 1 } else { counts.toTarget.forwarded += 1 }
                }
            }
        }
        finished.store(true, ordering: .releasing)
    }
}
