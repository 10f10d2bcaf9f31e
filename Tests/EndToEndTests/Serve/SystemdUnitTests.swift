import Foundation
import Testing
import TestSupport

/// deploy/livepush.service as systemd itself reads it: valid, a dedicated user with only the video
/// and audio groups, only its state directory writable, and a hardening score that stays where
/// docs/security.md says it is.
@Suite struct SystemdUnitTests {
    static let unit = LivepushBinary.repository.appendingPathComponent("deploy/livepush.service").path

    @Test func theUnitIsHardenedAsDocumented() throws {
        try ExternalTool.require("systemd-analyze")
        let report = try ExternalTool.run("systemd-analyze", ["security", "--offline=yes", Self.unit], timeoutSeconds: 60, check: false)
        let line = try #require(report.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(report.output) \(report.errorOutput)")
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }, "\(line)")
        #expect(score <= 1.5, "the exposure level rose to \(score): \(line)")
        let documented = try String(contentsOf: LivepushBinary.repository.appendingPathComponent("docs/security.md"), encoding: .utf8)
        #expect(documented.contains("exposure level \(String(format: "%.1f", score))"), "docs/security.md states the measured score \(score)")

        let unit = try String(contentsOfFile: Self.unit, encoding: .utf8)
        let settings = Set(unit.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") })
        for required in ["DynamicUser=yes", "SupplementaryGroups=video audio", "ProtectSystem=strict", "StateDirectory=livepush",
                         "CapabilityBoundingSet=", "NoNewPrivileges=yes", "ProtectHome=yes"] {
            #expect(settings.contains(required), "\(required) is in the unit")
        }
        #expect(!settings.contains { $0.hasPrefix("ReadWritePaths=") }, "nothing but the state directory is writable")
    }
}
