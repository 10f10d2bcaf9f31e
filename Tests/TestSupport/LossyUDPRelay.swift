import Foundation
import Synchronization

/// A UDP relay on 127.0.0.1 that loses a fraction of the packets, as a bad network would. It
/// forwards everything that arrives to `targetPort` (the peer that listens on a known port: an RTP
/// receiver, or livepush's WebRTC port) and sends what the target answers back to whoever spoke
/// last. Only media packets are ever lost, in the chosen directions: by default RTP and RTCP (first
/// byte 128–191, RFC 7983), so STUN and DTLS always pass and a test measures media repair, not
/// handshake retries; for SRT, its data packets (first byte 0–127), so handshakes, ACKs and NAKs
/// pass. With `delaySeconds` every packet that passes arrives that much later (a long path). With a
/// ``Bottleneck`` the target's packets also go through a token bucket whose rate steps over time
/// and a drop-tail queue (a link that narrows: queuing delay, then loss). It runs on its own thread
/// until ``stop()`` or its deadline, whichever comes first.
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
        /// Seconds after the first RTP/RTCP packet in that direction; `.infinity` waits for ``startOutage()``.
        public var startSeconds: Double
        public var durationSeconds: Double

        public init(direction: Directions, startSeconds: Double, durationSeconds: Double) {
            self.direction = direction
            self.startSeconds = startSeconds
            self.durationSeconds = durationSeconds
        }
    }

    /// A narrow link for the target's packets (every kind): a token bucket of `burstBytes` filled at
    /// the rate of the latest step, seconds after the first RTP/RTCP packet from the target; packets
    /// wait in a FIFO for tokens, and one that would wait longer than `queueLimitSeconds` is lost.
    public struct Bottleneck: Sendable {
        public var steps: [Step]
        public var burstBytes: Int
        public var queueLimitSeconds: Double

        public struct Step: Sendable {
            public var atSeconds: Double
            public var bitsPerSecond: Int
            public init(atSeconds: Double, bitsPerSecond: Int) {
                self.atSeconds = atSeconds
                self.bitsPerSecond = bitsPerSecond
            }
        }

        public init(steps: [Step], burstBytes: Int = 10_000, queueLimitSeconds: Double = 0.25) {
            self.steps = steps
            self.burstBytes = burstBytes
            self.queueLimitSeconds = queueLimitSeconds
        }

        func bitsPerSecond(atSeconds elapsed: Double) -> Int? {
            steps.last { $0.atSeconds <= elapsed }?.bitsPerSecond
        }
    }

    /// Packets passed and lost in one direction.
    public struct Counts: Sendable {
        public var forwarded = 0
        public var dropped = 0
        /// Of `dropped`, those the bottleneck's queue had no room for.
        public var droppedAtBottleneck = 0
    }

    /// Packets held until they are due, in due order.
    private struct DueQueue {
        var entries: [(due: Date, bytes: [UInt8], port: Int)] = []
        var head = 0

        var nextDue: Date? { head < entries.count ? entries[head].due : nil }

        mutating func sendDue(now: Date, on socket: LoopbackUDPSocket) {
            while head < entries.count, entries[head].due <= now {
                socket.send(entries[head].bytes, toPort: entries[head].port)
                head += 1
            }
            if head > 1024 { entries.removeFirst(head); head = 0 }
        }
    }

    /// Where the other peer sends; the target's packets also come in here.
    public let socket: LoopbackUDPSocket
    private let targetPort: Int
    private let lossPercent: Int
    private let lossy: Directions
    private let outage: Outage?
    private let lossyFirstBytes: ClosedRange<UInt8>
    private let delaySeconds: Double
    private let bottleneck: Bottleneck?
    private let running = Atomic<Bool>(true)
    private let counters = Mutex((toTarget: Counts(), fromTarget: Counts()))
    private let bottleneckStart = Mutex<Date?>(nil)
    /// Set by ``startOutage()`` and ``setBottleneckRate(bitsPerSecond:)``: the test's events, not the clock.
    private let outageStartedByTest = Mutex<Date?>(nil)
    private let bottleneckRateByTest = Mutex<Int?>(nil)
    private let finished = Atomic<Bool>(false)

    /// RTP and RTCP (RFC 7983's demultiplexing range), the default lossy packets.
    public static let rtpFirstBytes: ClosedRange<UInt8> = 128...191
    /// SRT data packets (the first bit clear); control packets have it set.
    public static let srtDataFirstBytes: ClosedRange<UInt8> = 0...127

    public init(port: Int, targetPort: Int, lossPercent: Int, lossy: Directions, outage: Outage? = nil, deadlineSeconds: Double,
                lossyFirstBytes: ClosedRange<UInt8> = LossyUDPRelay.rtpFirstBytes, delaySeconds: Double = 0,
                bottleneck: Bottleneck? = nil) throws {
        socket = try LoopbackUDPSocket(port: port)
        self.targetPort = targetPort
        self.lossPercent = lossPercent
        self.lossy = lossy
        self.outage = outage
        self.lossyFirstBytes = lossyFirstBytes
        self.delaySeconds = delaySeconds
        self.bottleneck = bottleneck
        // A key frame's burst arrives at once; it must wait in the bottleneck's queue, not be lost
        // in this socket's default buffer (whose accounting counts ~2 kB per 1.2 kB datagram).
        if bottleneck != nil { socket.setReceiveBuffer(bytes: 4 << 20) }
        let thread = Thread { [self] in run(deadline: Date().addingTimeInterval(deadlineSeconds)) }
        thread.start()
    }

    public var toTarget: Counts { counters.withLock { $0.toTarget } }
    public var fromTarget: Counts { counters.withLock { $0.fromTarget } }
    /// When the bottleneck's steps started (the first RTP/RTCP packet from the target); nil before.
    public var bottleneckStartedAt: Date? { bottleneckStart.withLock { $0 } }

    /// Starts the outage now, whatever its `startSeconds`: a test that times it from a peer's own
    /// progress (its first decoded frame) rather than from the relay's first packet.
    public func startOutage() { outageStartedByTest.withLock { $0 = Date() } }

    /// From now on the bottleneck runs at this rate, whatever its steps say: a test that steps the
    /// link when the peers have reacted (read from a status API) rather than at fixed times.
    public func setBottleneckRate(bitsPerSecond: Int) { bottleneckRateByTest.withLock { $0 = bitsPerSecond } }

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
        var bottleneckStart: Date?
        /// When the bottleneck's FIFO empties (its virtual finish time).
        var bottleneckFreeAt = Date.distantPast
        /// Packets held back by `delaySeconds` or the bottleneck, per direction (each in due order).
        var delayed = (toTarget: DueQueue(), fromTarget: DueQueue())
        while running.load(ordering: .acquiring), Date() < deadline {
            let now = Date()
            delayed.toTarget.sendDue(now: now, on: socket)
            delayed.fromTarget.sendDue(now: now, on: socket)
            let nextDue = [delayed.toTarget.nextDue, delayed.fromTarget.nextDue].compactMap { $0 }.min()
            let wait = nextDue.map { min(0.05, max(0.0005, $0.timeIntervalSince(now))) } ?? 0.05
            guard let (bytes, from) = socket.receive(timeoutSeconds: wait) else { continue }
            let fromTarget = from == targetPort
            let direction: Directions = fromTarget ? .fromTarget : .toTarget
            if !fromTarget { peerPort = from }
            guard let destination = fromTarget ? peerPort : targetPort else { continue }
            var lose = false
            if let first = bytes.first, lossyFirstBytes.contains(first) {
                if let outage, outage.direction.contains(direction) {
                    let start = outageStartedByTest.withLock { $0 } ?? outageStart ?? Date().addingTimeInterval(outage.startSeconds)
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
            var queueFull = false, queued = false
            if !lose, fromTarget, let bottleneck {
                if bottleneckStart == nil, let first = bytes.first, Self.rtpFirstBytes.contains(first) {
                    bottleneckStart = Date()
                    self.bottleneckStart.withLock { $0 = bottleneckStart }
                }
                let elapsed = bottleneckStart.map { Date().timeIntervalSince($0) } ?? 0
                if let rate = bottleneckRateByTest.withLock({ $0 }) ?? bottleneck.bitsPerSecond(atSeconds: elapsed) {
                    let arrival = Date()
                    // Tokens saved up while idle, at most the bucket's depth.
                    let start = max(bottleneckFreeAt, arrival.addingTimeInterval(-Double(bottleneck.burstBytes * 8) / Double(rate)))
                    let departure = start.addingTimeInterval(Double(bytes.count * 8) / Double(rate))
                    if departure.timeIntervalSince(arrival) > bottleneck.queueLimitSeconds {
                        queueFull = true
                        lose = true
                    } else {
                        bottleneckFreeAt = departure
                        queued = true
                        delayed.fromTarget.entries.append((max(arrival, departure).addingTimeInterval(delaySeconds), bytes, destination))
                    }
                }
            }
            if !lose, !queued {
                if delaySeconds > 0 {
                    let due = (Date().addingTimeInterval(delaySeconds), bytes, destination)
                    if fromTarget { delayed.fromTarget.entries.append(due) } else { delayed.toTarget.entries.append(due) }
                } else {
                    socket.send(bytes, toPort: destination)
                }
            }
            counters.withLock { counts in
                if fromTarget {
                    if queueFull { counts.fromTarget.droppedAtBottleneck += 1 }
                    if lose { counts.fromTarget.dropped += 1 } else { counts.fromTarget.forwarded += 1 }
                } else {
                    if lose { counts.toTarget.dropped += 1 } else { counts.toTarget.forwarded += 1 }
                }
            }
        }
        finished.store(true, ordering: .releasing)
    }
}
