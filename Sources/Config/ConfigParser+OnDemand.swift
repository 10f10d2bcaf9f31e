extension ConfigParser {
    /// `on_demand: true|false` and `on_demand_idle: DURATION` of one camera; nil: always on.
    /// An idle grace without `on_demand: true` is refused: it would silently do nothing.
    func parseOnDemand(_ map: ConfigMapping) throws(ConfigError) -> OnDemandConfig? {
        let enabled = try map["on_demand"]?.bool() ?? false
        guard let idle = map["on_demand_idle"] else { return enabled ? OnDemandConfig() : nil }
        guard enabled else { throw idle.error("on_demand_idle applies only with on_demand: true on the same camera") }
        return OnDemandConfig(idleSeconds: try duration(idle))
    }
}
