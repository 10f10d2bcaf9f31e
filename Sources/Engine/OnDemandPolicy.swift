/// Whether an on-demand camera should capture and encode now: the decision alone, no I/O and no
/// clock of its own, so tests drive it with made-up times (``OnDemandController`` does the rest).
///
/// A camera is wanted while an output runs, a WHEP viewer is there, or a snapshot holds it; once
/// nothing wants it, it keeps running for the idle grace (a viewer reloading the page finds it
/// running), then idles. At the first decision nothing has wanted it yet, so an unwatched camera
/// idles at once rather than after a grace.
struct OnDemandPolicy: Sendable {
    /// What wants the camera at one moment.
    struct Demand: Sendable, Equatable {
        /// Outputs running (not stopped from the API), WHEP not counted: its endpoint stays up for viewers.
        var activeOutputs = 0
        /// WHEP viewers, from their offer on (before ICE connects, so the start overlaps the handshake).
        var viewers = 0
        /// A snapshot (or preview) wants frames until this time.
        var heldUntilNanos: Int64?

        func wants(atNanos now: Int64) -> Bool { !wanters(atNanos: now).isEmpty }

        /// What wants the camera, for the log: "2 outputs, 1 viewer, a snapshot".
        func wanters(atNanos now: Int64) -> String {
            var parts: [String] = []
            if activeOutputs > 0 { parts.append("\(activeOutputs) output\(activeOutputs == 1 ? "" : "s")") }
            if viewers > 0 { parts.append("\(viewers) viewer\(viewers == 1 ? "" : "s")") }
            if let held = heldUntilNanos, now < held { parts.append("a snapshot") }
            return parts.joined(separator: ", ")
        }
    }

    /// What the camera should do after a decision.
    enum Action: Sendable, Equatable {
        case keep
        case start
        case stop
    }

    /// Why it idles, for status and the log.
    static let idleReason = "on demand, no viewer"

    let graceNanos: Int64
    /// Whether the camera runs after the last decision.
    private(set) var isRunning: Bool
    private var lastWantedNanos: Int64?

    /// `running`: whether the camera runs when the policy takes over (it opened at start to check the device).
    init(graceSeconds: Double, running: Bool) {
        graceNanos = Int64(graceSeconds * 1e9)
        isRunning = running
    }

    /// Takes the demand at `now` and says whether to start, stop or keep the camera as it is.
    mutating func decide(_ demand: Demand, nowNanos now: Int64) -> Action {
        if demand.wants(atNanos: now) {
            lastWantedNanos = now
            guard !isRunning else { return .keep }
            isRunning = true
            return .start
        }
        guard isRunning else { return .keep }
        if let last = lastWantedNanos, now - last < graceNanos { return .keep }
        isRunning = false
        return .stop
    }

    /// The start it asked for failed: the camera is idle, and the next decision that finds it
    /// wanted asks for a start again.
    mutating func startFailed() { isRunning = false }
}
