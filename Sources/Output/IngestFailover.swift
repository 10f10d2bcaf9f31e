/// Which of an output's ingests (the primary, then its backups) carries the stream, decided without a
/// socket or a clock of its own: the owner reports losses and probe results with the time, and is
/// told where to connect and when to go back to the primary. Unit-tested on its own.
///
/// On a loss the stream moves to the next ingest (primary → backup 1 → … → primary) at once; only
/// once every ingest has failed since the last live connection does the normal backoff apply. While
/// on a backup the primary is probed, and the stream returns once every probe for
/// ``Settings/returnAfterSeconds`` has reached it (one failed probe starts the wait again).
public struct IngestFailover: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        /// How long the primary must stay reachable before the stream goes back to it (YAML `backup_return_after`).
        public var returnAfterSeconds: Double

        public init(returnAfterSeconds: Double = 10) {
            self.returnAfterSeconds = returnAfterSeconds
        }

        /// How often the primary is probed while a backup carries the stream: every 5 s, or twice
        /// within a shorter ``returnAfterSeconds`` so that the wait is witnessed by several probes.
        public var probeIntervalSeconds: Double { min(5, max(0.25, returnAfterSeconds / 2)) }
    }

    /// What follows a loss of the live ingest; its description is the owner's log line.
    public enum Next: Sendable, Equatable, CustomStringConvertible {
        /// Connect to this ingest now: it has not failed since the last live connection.
        case connectNow(index: Int)
        /// Every ingest failed since the last live connection: wait the backoff, then try this one.
        case backOff(index: Int)

        public var description: String {
            switch self {
            case .connectNow(let index): "moving to \(IngestFailover.name(of: index)) now"
            case .backOff(let index): "every ingest failed; \(IngestFailover.name(of: index)) next, after the backoff"
            }
        }
    }

    public let settings: Settings
    /// How many ingests there are (1 + backups).
    public let count: Int
    /// The ingest connections go to (0 is the primary).
    public private(set) var live = 0
    /// When ``live`` became the ingest, in the owner's nanoseconds.
    public private(set) var sinceNanos: Int64
    /// Why the stream is on ``live``: "started", "stalled: …", the error, or "primary back".
    public private(set) var reason = "started"
    /// Ingests that failed since the last live connection.
    private var failedSinceLive = 0
    /// Since when every probe of the primary has reached it; nil after a failed one.
    private var primaryReachableSince: Int64?
    /// The owner is moving the stream back to the primary (``probed(primaryReachable:nowNanos:)`` said so).
    public private(set) var isReturning = false

    public init(backups: Int, settings: Settings = Settings(), nowNanos: Int64) {
        count = 1 + max(0, backups)
        self.settings = settings
        sinceNanos = nowNanos
    }

    /// Whether there is anywhere to move to.
    public var hasBackups: Bool { count > 1 }
    /// Whether the primary should be probed: a backup carries the stream, and no return is under way.
    public var probesPrimary: Bool { live != 0 && !isReturning }

    /// A connection to the live ingest went live: the count of failed ingests starts again.
    public mutating func connected() {
        failedSinceLive = 0
    }

    /// The live ingest failed (`reason`: "stalled", the error text): where to connect next.
    public mutating func failed(reason: String, nowNanos: Int64) -> Next {
        failedSinceLive += 1
        live = (live + 1) % count
        sinceNanos = nowNanos
        self.reason = reason
        primaryReachableSince = nil
        isReturning = false
        return failedSinceLive < count ? .connectNow(index: live) : .backOff(index: live)
    }

    /// A probe of the primary reached it (or not) at `nowNanos`: whether to go back to it now.
    public mutating func probed(primaryReachable: Bool, nowNanos: Int64) -> Bool {
        guard probesPrimary, primaryReachable else {
            primaryReachableSince = nil
            return false
        }
        let since = primaryReachableSince ?? nowNanos
        primaryReachableSince = since
        isReturning = Double(nowNanos - since) / 1e9 >= settings.returnAfterSeconds
        return isReturning
    }

    /// The move back did not come about (the primary's connection failed): probing starts again.
    public mutating func returnAbandoned() {
        isReturning = false
        primaryReachableSince = nil
    }

    /// "the primary ingest", "backup ingest 2": for logs.
    public static func name(of index: Int) -> String { index == 0 ? "the primary ingest" : "backup ingest \(index)" }

    /// The stream is back on the primary (the owner switched at a keyframe).
    public mutating func returnedToPrimary(nowNanos: Int64) {
        live = 0
        sinceNanos = nowNanos
        reason = "primary back"
        primaryReachableSince = nil
        isReturning = false
        failedSinceLive = 0
    }
}

/// Which ingest carries an output's stream, for the status line and `/api/status` (outputs with backups).
public struct IngestReport: Sendable, Equatable, Codable {
    /// 0 for the primary, 1… for the backups in their configured order.
    public var index: Int
    /// Its URL, the stream key masked.
    public var url: String
    /// Since when it carries the stream (or is being connected to), in seconds since 1970 (UTC).
    public var sinceUnixSeconds: Double
    /// Why the stream moved there: "started", "stalled: …", the connection's error, or "primary back".
    public var reason: String
    /// `failover` (one ingest at a time, this one live) or `both` (this output is one of several
    /// publishing to every ingest at once): the config's `backup_mode`.
    public var mode: String

    public init(index: Int, url: String, sinceUnixSeconds: Double, reason: String, mode: String = "failover") {
        self.index = index
        self.url = url
        self.sinceUnixSeconds = sinceUnixSeconds
        self.reason = reason
        self.mode = mode
    }
}
