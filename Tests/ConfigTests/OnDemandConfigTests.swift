import Config
import Testing

/// `on_demand:` and `on_demand_idle:` on a camera, and the line named for bad values.
@Suite struct OnDemandConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:], readFile: { _ in nil })

    @Test func parsesOnDemandWithItsGrace() throws {
        let config = try parser.parse("cameras:\n  - id: a\n    on_demand: true\n    on_demand_idle: 30s\n  - id: b\n    on_demand: yes\n  - id: c\n")
        #expect(config.cameras.map(\.onDemand) == [OnDemandConfig(idleSeconds: 30), OnDemandConfig(idleSeconds: OnDemandConfig.defaultIdleSeconds), nil])
        #expect(try parser.parse("cameras:\n  - id: a\n    on_demand: false\n").cameras.first?.onDemand == nil)
    }

    @Test(arguments: [
        ("cameras:\n  - id: a\n    on_demand: sometimes\n", "livepush.yaml:3: cameras[0].on_demand: 'sometimes' must be true or false"),
        ("cameras:\n  - id: a\n    on_demand: true\n    on_demand_idle: soon\n", "livepush.yaml:4: cameras[0].on_demand_idle: 'soon' is not a duration"),
        ("cameras:\n  - id: a\n    on_demand_idle: 5s\n", "livepush.yaml:3: cameras[0].on_demand_idle: on_demand_idle applies only with on_demand: true"),
    ])
    func refusesBadValues(yaml: String, expected: String) {
        do {
            _ = try parser.parse(yaml)
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.description.contains(expected), "got: \(error.description)")
        }
    }
}
