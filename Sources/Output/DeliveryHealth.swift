/// Whether an output's receiver is taking the media, decided from the receiver's own evidence
/// (RTMP Acknowledgements, SRT ACKs, RTCP receiver reports), not from "the socket is open".
///
/// A pure value: the output feeds it timestamps and counters (``connected(nowNanos:)``,
/// ``observe(_:)``, ``lost(nowNanos:cause:)``) from its own thread and reads the state back; it does
/// no I/O and reads no clock, so tests drive it with a fake one. It also keeps the numbers of the
/// output's ``DeliveryReport``.
///
/// The rule: the receiver makes *progress* when its acknowledged counter advances, or when it is
/// owed no more than ``Sample/acknowledgementStepBytes`` (acknowledgements come in steps: RTMP's
/// window, so a receiver may hold that much before it says anything), or when a second witness
/// saw it take bytes (``Sample/witnessedProgress``). No progress for
/// ``Settings/stallTimeoutSeconds`` is *stalled*; for half of it, or frames dropped in the last
/// ``Settings/recentDropSeconds``, *degraded*.
public struct DeliveryHealth: Sendable {
    public enum State: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
        case healthy, degraded, stalled, reconnecting, failed
    }

    public struct Settings: Sendable, Hashable {
        /// No acknowledgement for this long, with media owed, is a stall (`stall_timeout`, default 5 s).
        public var stallTimeoutSeconds: Double
        /// Frames dropped within this many seconds keep the output degraded.
        public var recentDropSeconds: Double

        public init(stallTimeoutSeconds: Double = 5, recentDropSeconds: Double = 5) {
            self.stallTimeoutSeconds = stallTimeoutSeconds
            self.recentDropSeconds = recentDropSeconds
        }
    }

    /// What the output knows about one connection at one moment; counters start at 0 per connection.
    public struct Sample: Sendable, Hashable {
        public var nowNanos: Int64
        /// Bytes handed to the transport on this connection.
        public var bytesSent: Int64
        /// Bytes the receiver says it has (RTMP: the last Acknowledgement's sequence number, unwrapped).
        public var bytesAcknowledged: Int64
        /// How far the receiver's acknowledgements may lag by design (RTMP: the acknowledgement window).
        public var acknowledgementStepBytes: Int64
        /// Frames this output dropped so far (all connections).
        public var framesDropped: Int
        /// What `bytesAcknowledged` counts, for messages ("RTMP acknowledgement", "TCP acknowledgement").
        /// A connection may switch once, from a fallback to the receiver's own; its count restarts then.
        public var evidence: String
        /// A second witness (RTMP: the kernel's TCP acknowledgements) saw the receiver take bytes
        /// since the last sample while within its own acknowledgement step: progress, though its
        /// own counter has not moved yet.
        public var witnessedProgress: Bool

        public init(nowNanos: Int64, bytesSent: Int64, bytesAcknowledged: Int64, acknowledgementStepBytes: Int64, framesDropped: Int,
                    evidence: String, witnessedProgress: Bool = false) {
            self.nowNanos = nowNanos
            self.bytesSent = bytesSent
            self.bytesAcknowledged = bytesAcknowledged
            self.acknowledgementStepBytes = acknowledgementStepBytes
            self.framesDropped = framesDropped
            self.evidence = evidence
            self.witnessedProgress = witnessedProgress
        }

        public var unacknowledgedBytes: Int64 { max(0, bytesSent - bytesAcknowledged) }
    }

    public let settings: Settings
    /// The receiver's own evidence, e.g. "RTMP acknowledgement" (the report's name for it).
    public let evidence: String
    public private(set) var state: State = .reconnecting
    public private(set) var report: DeliveryReport

    private var lastUpdateNanos: Int64?
    private var lastProgressNanos: Int64 = 0
    /// When the receiver last acknowledged something new, across connections (for the longest gap).
    private var lastDeliveryNanos: Int64?
    private var sessionAcknowledged: Int64 = 0
    private var sessionSent: Int64 = 0
    private var dropsSeen = 0
    private var lastDropNanos: Int64?
    private var lastSample: Sample?
    /// Between ``lost(nowNanos:cause:)`` and ``connected(nowNanos:)``: no connection to judge.
    private var closed = false
    /// Off once ``finished(nowNanos:)``: a stopped output accumulates no more time.
    private var accounting = true

    public init(settings: Settings = Settings(), evidence: String) {
        self.settings = settings
        self.evidence = evidence
        report = DeliveryReport(evidence: evidence)
    }

    /// A new connection is ready to carry media: the stall clock starts now.
    public mutating func connected(nowNanos: Int64) {
        account(until: nowNanos)
        commitSession()
        lastProgressNanos = nowNanos
        lastSample = nil
        closed = false
        state = .healthy
    }

    /// Updates the state from a sample of the current connection.
    /// - Returns: the new state when it changed.
    @discardableResult
    public mutating func observe(_ sample: Sample) -> State? {
        account(until: sample.nowNanos)
        guard state != .reconnecting, state != .failed, !closed else { return nil }
        if let lastSample, lastSample.evidence != sample.evidence { sessionAcknowledged = 0 }
        if sample.bytesAcknowledged > sessionAcknowledged {
            if let lastDeliveryNanos {
                report.longestGapSeconds = max(report.longestGapSeconds ?? 0, Double(sample.nowNanos - lastDeliveryNanos) / 1e9)
            }
            lastDeliveryNanos = sample.nowNanos
            lastProgressNanos = sample.nowNanos
        } else if sample.unacknowledgedBytes <= sample.acknowledgementStepBytes || sample.witnessedProgress {
            lastProgressNanos = sample.nowNanos
        }
        sessionAcknowledged = max(sessionAcknowledged, sample.bytesAcknowledged)
        sessionSent = max(sessionSent, sample.bytesSent)
        if sample.framesDropped > dropsSeen {
            dropsSeen = sample.framesDropped
            lastDropNanos = sample.nowNanos
        }
        lastSample = sample
        let silent = silentSeconds(at: sample.nowNanos)
        let droppedRecently = lastDropNanos.map { Double(sample.nowNanos - $0) / 1e9 < settings.recentDropSeconds } ?? false
        let next: State = silent >= settings.stallTimeoutSeconds ? .stalled
            : silent >= settings.stallTimeoutSeconds / 2 || droppedRecently ? .degraded : .healthy
        defer { state = next }
        return next == state ? nil : next
    }

    /// Seconds since the receiver last made progress on this connection.
    public func silentSeconds(at nowNanos: Int64) -> Double {
        Double(nowNanos - lastProgressNanos) / 1e9
    }

    /// The evidence behind the current state, for the log line that announces a stall:
    /// "no RTMP acknowledgement for 6.2 s; 1.4 MB unacknowledged".
    public var stallDescription: String {
        guard let sample = lastSample else { return "no \(evidence) yet" }
        return "no \(sample.evidence) for \(String(format1: silentSeconds(at: sample.nowNanos))) s; "
            + "\(Self.describe(bytes: sample.unacknowledgedBytes)) unacknowledged"
    }

    /// The connection ended (an error, or this type's own stall verdict); `cause` is counted in the report.
    /// A stalled output stays stalled until the next connection carries media (the receiver still gets
    /// nothing); any other loss is reconnecting.
    public mutating func lost(nowNanos: Int64, cause: String) {
        account(until: nowNanos)
        commitSession()
        report.reconnectCauses[cause, default: 0] += 1
        if state != .stalled { state = .reconnecting }
        closed = true
    }

    /// The output gave up (a refused key, attempts used up).
    public mutating func failed(nowNanos: Int64) {
        account(until: nowNanos)
        commitSession()
        closed = true
        state = .failed
    }

    /// The output stopped: time and counters stop here (the report keeps them).
    public mutating func finished(nowNanos: Int64) {
        account(until: nowNanos)
        commitSession()
        closed = true
        accounting = false
    }

    /// The report so far, with the current connection's counters and time up to `nowNanos` included.
    public func report(at nowNanos: Int64) -> DeliveryReport {
        var copy = self
        copy.account(until: nowNanos)
        copy.commitSession()
        return copy.report
    }

    /// "1.4 MB", "35 KB", "512 B": decimal units, one decimal place from MB on.
    public static func describe(bytes: Int64) -> String {
        if bytes >= 1_000_000 { return "\(String(format1: Double(bytes) / 1e6)) MB" }
        if bytes >= 1000 { return "\(bytes / 1000) KB" }
        return "\(bytes) B"
    }

    private mutating func account(until nowNanos: Int64) {
        defer { lastUpdateNanos = max(lastUpdateNanos ?? nowNanos, nowNanos) }
        guard accounting, let last = lastUpdateNanos, nowNanos > last else { return }
        report.seconds[state, default: 0] += Double(nowNanos - last) / 1e9
    }

    /// Moves the connection's counters into the report's totals.
    private mutating func commitSession() {
        report.bytesSent += sessionSent
        report.bytesAcknowledged += sessionAcknowledged
        (sessionSent, sessionAcknowledged) = (0, 0)
    }
}

extension String {
    /// One decimal place, without Foundation's `String(format:)`.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
