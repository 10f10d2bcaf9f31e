/// `on_demand: true` on a camera: capture and encode run only while something wants the picture
/// (an output running, a WHEP viewer, a snapshot), so an unwatched camera costs no CPU, and on a
/// Raspberry Pi its camera and hardware encoder idle (docs/raspberry-pi.md).
public struct OnDemandConfig: Sendable, Equatable {
    /// How long the camera keeps running after the last viewer or output went, so a viewer who
    /// reloads the page finds it running: `on_demand_idle`.
    public var idleSeconds: Double

    /// Long enough to cover a page reload or a player reconnecting, short enough to save power soon.
    public static let defaultIdleSeconds: Double = 10

    public init(idleSeconds: Double = OnDemandConfig.defaultIdleSeconds) {
        self.idleSeconds = idleSeconds
    }
}
