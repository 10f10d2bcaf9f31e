import ServiceLifecycle

extension ServiceGroupConfiguration.ServiceConfiguration {
    /// A service of `stream` or `serve` whose end, returned or thrown, shuts the whole group down
    /// gracefully, logged as `name`.
    ///
    /// Always named: unnamed, swift-service-lifecycle takes a service's name from `"\(service)"`,
    /// which reflects the service's stored properties through the runtime's type metadata as the
    /// group is made; what that walks stays resident until the next release of file pages, at the
    /// one-encode job's peak (0.4–0.6 MiB, ~3 ms of start-up: BENCHMARKS.md, "What one encode costs
    /// before its first frame, and services by name").
    static func endingTheGroup(_ service: any Service, named name: String) -> Self {
        Self(service: service, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup,
             serviceName: name)
    }
}
