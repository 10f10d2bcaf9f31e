import Foundation
import Logging
import MediaCore
import Synchronization

/// Wraps a camera (or any ``FrameSource``) so the stream never stops: when the camera is
/// unplugged, stalls, or is missing at start, it produces "no signal" cards (``NoSignalCard``) at
/// the configured rate and tries to re-open the camera on the shared ``Backoff`` (``defaultReopen``:
/// quickly at first, then at most every 2 s); frames resume as soon as it is back. Outputs downstream keep their connections and their timestamps keep advancing. The
/// loss and the return are read steps of their own (``SourceOutput/event(_:)``), so the capturer
/// reports them on its events (`livepush run --json-events` prints them).
///
/// With ``NoSignal/fail`` it shows no card: a missing or lost camera is the capture's error, as a
/// one-off picture needs. Errors the inner source does not call recoverable (a config mistake, a
/// file that ended) pass through unchanged. Like every source, it is driven by one capture thread only.
public final class ResilientSource: FrameSource, @unchecked Sendable {
    /// What a camera that is missing, unplugged or stalled becomes.
    public enum NoSignal: Sendable {
        /// The no-signal card while the camera is re-opened: a stream, a recording or `run` goes on.
        case showCard
        /// The camera's error, ending the capture: a snapshot of the card would be a lie.
        case fail
    }

    public let inner: any FrameSource
    /// The waits between re-open attempts while showing the card.
    public var reopen: Backoff { schedule.backoff }
    public let noSignal: NoSignal
    private let logger: Logger
    private var config = CaptureConfig()
    /// Written by the capture thread, read by the status API.
    private let lost = Atomic<Bool>(false)
    private var signalLost: Bool {
        get { lost.load(ordering: .relaxed) }
        set { lost.store(newValue, ordering: .relaxed) }
    }
    private var cards = NoSignalCardClock()
    private var schedule: ReopenSchedule<SystemRandomNumberGenerator>
    /// The loss found by `open` (a camera missing at start), reported by the first read.
    private var pendingEvent: CaptureEvent?

    /// A camera that comes back is usually a cable wiggle or a USB re-enumeration (well under a
    /// second), and a failed open of a missing device node costs microseconds: the first attempts
    /// come fast (0.125–0.25 s, then 0.25–0.5 s, …). A device that is there but refuses (busy,
    /// stalling) can hold the capture thread — and with it the card — for its whole open, so the
    /// waits grow to a 2 s cap: a returning camera is back within 2 s, and the card stays smooth.
    public static let defaultReopen = Backoff(initialDelaySeconds: 0.25, maximumDelaySeconds: 2)

    public init(_ inner: any FrameSource, reopen: Backoff = defaultReopen, noSignal: NoSignal = .showCard,
                logger: Logger = Logger(label: "livepush.capture")) {
        self.inner = inner
        schedule = ReopenSchedule(backoff: reopen, random: SystemRandomNumberGenerator())
        self.noSignal = noSignal
        self.logger = logger
    }

    public var name: String { inner.name }
    public var mirrorsAtSource: Bool { inner.mirrorsAtSource }
    public var runsAheadOfClock: Bool { !signalLost && inner.runsAheadOfClock }

    /// True while the card is shown instead of the camera.
    public var isShowingPlaceholder: Bool { signalLost }

    public func open(config: CaptureConfig) throws(CaptureError) -> CaptureFormat {
        self.config = config
        do {
            let format = try inner.open(config: config)
            signalLost = false
            pendingEvent = nil
            return format
        } catch where noSignal == .showCard && (inner.isRecoverable(error) || Self.isAbsentCamera(error)) {
            loseSignal(error)
            pendingEvent = .error(error)
            return CaptureFormat(size: config.size, framesPerSecond: config.framesPerSecond, pixelFormat: .i420, notes: ["no signal: \(error)"])
        }
    }

    public func read(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput {
        if let event = pendingEvent {
            pendingEvent = nil
            return .event(event)
        }
        if signalLost { return try placeholder(pool: pool) }
        do {
            return try inner.read(pool: pool)
        } catch where noSignal == .showCard && inner.isRecoverable(error) {
            inner.close()
            loseSignal(error)
            return .event(.error(error))
        }
    }

    public func close() {
        if !signalLost { inner.close() }
    }

    private func loseSignal(_ error: CaptureError) {
        logger.warning("no signal, showing the placeholder card", metadata: ["source": "\(inner.name)", "error": "\(error)"])
        signalLost = true
        let now = MonotonicClock.nowNanos()
        cards.restart(at: now)
        schedule.lost(atNanos: now)
    }

    /// The next card when it is due (sleeping at most 100 ms per call), and a re-open attempt when the schedule says.
    private func placeholder(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput {
        let now = MonotonicClock.nowNanos()
        if schedule.attemptIsDue(atNanos: now) {
            if let format = try? inner.open(config: config) {
                signalLost = false
                logger.info("signal is back", metadata: ["source": "\(inner.name)", "format": "\(format)"])
                return .event(.started(format))
            }
        }
        if let card = try cards.cardIfDue(now: now, pool: pool, config: config, rotation: config.rotation) { return card }
        let wait = min(cards.nextCardNanos - now, 100_000_000)
        var request = timespec(tv_sec: 0, tv_nsec: Int(wait))
        nanosleep(&request, nil)
        return .idle
    }

    /// A camera that is not there (yet) at start: worth waiting for, as an unplug is.
    static func isAbsentCamera(_ error: CaptureError) -> Bool {
        switch error {
        case .deviceNotFound, .deviceUnplugged, .deviceBusy, .stalled: return true
        default: return false
        }
    }
}
