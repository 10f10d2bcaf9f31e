import Synchronization

/// The shared encoder's bitrate when several outputs adapt to their links.
///
/// One encode serves every output, so when an RTMP link's adaptive bitrate or the WHEP viewers'
/// REMB estimates ask for less, the encoder runs at the lowest of those limits, and never above
/// the configured bitrate (the user's, or the API's set-bitrate). Each output's limit replaces its
/// previous one; an output that recovers, or stops, lifts its limit (nil). Without this, two
/// adapting outputs each set the encoder directly and the last one to speak won, flooding the
/// slower link.
public final class BitrateArbiter: Sendable {
    /// Where the encoder's bitrate is and has been, for the run's report.
    public struct Summary: Sendable, Equatable {
        public var bitsPerSecond: Int
        public var lowestBitsPerSecond: Int
        public var changes: Int
    }

    private struct State {
        var configured: Int
        var limits: [Int: Int] = [:]
        var applied: Int
        var lowest: Int
        var changes = 0

        var effective: Int { min(configured, limits.values.min() ?? configured) }
    }

    private let state: Mutex<State>
    private let apply: @Sendable (Int) -> Void

    /// `apply` tells the encoder a new bitrate; it is called only on a change, under no lock of the caller's.
    public init(configuredBitsPerSecond: Int, apply: @escaping @Sendable (Int) -> Void) {
        state = Mutex(State(configured: configuredBitsPerSecond, applied: configuredBitsPerSecond, lowest: configuredBitsPerSecond))
        self.apply = apply
    }

    /// The bitrate the encoder runs at now.
    public var bitsPerSecond: Int { state.withLock { $0.applied } }

    public var summary: Summary {
        state.withLock { Summary(bitsPerSecond: $0.applied, lowestBitsPerSecond: $0.lowest, changes: $0.changes) }
    }

    /// The ceiling: what the user configured or the API set.
    public func setConfigured(_ bitsPerSecond: Int) {
        update { $0.configured = max(1, bitsPerSecond) }
    }

    /// Output `source`'s limit (its index in the pipeline), or nil to lift it.
    public func limit(_ bitsPerSecond: Int?, source: Int) {
        update { $0.limits[source] = bitsPerSecond.map { max(1, $0) } }
    }

    private func update(_ change: (inout State) -> Void) {
        let changed: Int? = state.withLock { state in
            change(&state)
            let effective = state.effective
            guard effective != state.applied else { return nil }
            state.applied = effective
            state.lowest = min(state.lowest, effective)
            state.changes += 1
            return effective
        }
        if let changed { apply(changed) }
    }
}
