import Codec
import MediaCore
import Output
import Synchronization

/// An output the API can stop and start again while the camera keeps streaming.
///
/// The pipeline's output list is fixed, so each configured output sits in one of these: while
/// stopped it drops frames (uncounted: nobody asked for them); `start` makes a fresh inner output
/// from `make` (a new recording file, a new connection) and asks for a keyframe. Start and stop
/// are serialized by the caller (``CameraRuntime``'s owner is an actor). One configured
/// `start: false` stays stopped when the pipeline starts it, until ``resume()``.
public final class ControlledOutput: StreamOutput {
    public let id: String
    public let kind: String
    /// Where it goes, secrets masked.
    public let target: String
    /// What the inner outputs carry; each new one starts with the track.
    public let audioCodec: AudioCodec?
    /// Whether its kind shows frames upright from rotation metadata (WHEP's orientation extension).
    public let carriesRotationMetadata: Bool
    /// Whether its kind takes every rendition of the camera (WHEP viewers picking one each).
    public let servesAllRenditions: Bool
    /// `start: false`: the camera's start leaves it stopped; the API starts it.
    public let startsStopped: Bool
    /// `backup_mode: both`: the ingest of its configured output this one publishes to, shown in
    /// status (`ingest`) and metrics so each ingest is told apart; nil for every other output.
    public let ingest: Int?
    private let make: @Sendable () throws -> any StreamOutput
    private let state = Mutex(State())

    private struct State {
        var inner: (any StreamOutput)?
        /// The output made last, kept after it stopped for its final report.
        var last: (any StreamOutput)?
        /// The pipeline's start context, handed to each inner output (the pieces it takes).
        var context: OutputStartContext?
        var startedNanos: Int64?
        /// When the inner output started, for the `ingest` of a `backup_mode: both` output.
        var startedUnixSeconds: Double?
        var lastError: String?
        /// Status of the previous inner output, so counters survive a stop.
        var stoppedStatus: OutputStatus?
        /// Why it is stopped, for status: configured so, or stopped through the API; nil once it runs.
        var stopReason: String?
    }

    public init(id: String, kind: String, target: String, audioCodec: AudioCodec? = nil, carriesRotationMetadata: Bool = false,
                servesAllRenditions: Bool = false, startsStopped: Bool = false, ingest: Int? = nil,
                make: @escaping @Sendable () throws -> any StreamOutput) {
        self.id = id
        self.kind = kind
        self.target = target
        self.audioCodec = audioCodec
        self.carriesRotationMetadata = carriesRotationMetadata
        self.servesAllRenditions = servesAllRenditions
        self.startsStopped = startsStopped
        self.ingest = ingest
        self.make = make
    }

    public var name: String { id }

    /// What status says of an output stopped on purpose, so a user knows it is not broken and how to start it.
    static let configuredStoppedReason = "configured to start stopped (start: false); start it through the API or the dashboard"
    static let stoppedThroughAPIReason = "stopped through the API; start it through the API or the dashboard"

    /// The pipeline's start: runs the output unless it is configured to start stopped.
    public func start(_ context: OutputStartContext) async throws {
        state.withLock { state in
            state.context = context
            if startsStopped { state.stopReason = Self.configuredStoppedReason }
        }
        guard !startsStopped else { return }
        try await resume()
    }

    /// (Re)starts the inner output; a no-op when it is running.
    public func resume() async throws {
        guard state.withLock({ $0.inner == nil }) else { return }
        let context = state.withLock { $0.context } ?? OutputStartContext()
        do {
            let output = try make()
            try await output.start(context.restricted(to: output))
            state.withLock { state in
                state.inner = output
                state.last = output
                state.startedNanos = MonotonicClock.nowNanos()
                state.startedUnixSeconds = Double(MonotonicClock.wallClockNowNanos() / 1_000_000) / 1000
                state.lastError = nil
                state.stopReason = nil
            }
        } catch {
            state.withLock { $0.lastError = "\(error)" }
            throw error
        }
    }

    public func stop() async {
        let inner = state.withLock { state -> (any StreamOutput)? in
            defer { state.inner = nil; state.startedNanos = nil }
            return state.inner
        }
        guard let inner else { return }
        await inner.stop()
        let context = state.withLock { state in
            state.stoppedStatus = inner.status
            return state.context
        }
        context?.limitBitrate(nil)  // a stopped output holds nobody's bitrate down
    }

    /// Stops it as the API asks, saying so in status until it starts again.
    public func stopThroughAPI() async {
        await stop()
        state.withLock { $0.stopReason = Self.stoppedThroughAPIReason }
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) { state.withLock { $0.inner }?.onEncodedFrame(frame) }
    public func onEncoderError(_ error: CodecError) { state.withLock { $0.inner }?.onEncoderError(error) }
    public func onEncodedAudio(_ frame: EncodedAudioFrame) { state.withLock { $0.inner }?.onEncodedAudio(frame) }

    public var isRunning: Bool { state.withLock { $0.inner != nil } }

    /// Why a stopped output is stopped (configured `start: false`, or stopped through the API); nil
    /// while it runs or after it failed (``status`` has the error then).
    public var stateReason: String? { state.withLock { $0.inner == nil && $0.lastError == nil ? $0.stopReason : nil } }

    /// The output running now, or the one that ran last (its final counters, after a stop).
    public var lastOutput: (any StreamOutput)? { state.withLock { $0.last } }

    public var uptimeSeconds: Double? {
        state.withLock { $0.startedNanos }.map { Double(MonotonicClock.nowNanos() - $0) / 1e9 }
    }

    public var status: OutputStatus {
        let (inner, lastError, stopped, since) = state.withLock { ($0.inner, $0.lastError, $0.stoppedStatus, $0.startedUnixSeconds) }
        var status: OutputStatus
        if let inner {
            status = inner.status
        } else {
            status = stopped ?? OutputStatus(state: .stopped)
            status.state = lastError == nil ? .stopped : .failed
            status.lastError = lastError ?? status.lastError
        }
        if let ingest {
            status.ingest = IngestReport(index: ingest, url: target, sinceUnixSeconds: since ?? 0, reason: "started", mode: "both")
        }
        return status
    }
}
