import Foundation
import Testing
import TestSupport

/// `stream --adapt-cpu` and its floors become the camera's `adapt:` block, checked by the same parser.
@Suite struct StreamAdaptFlagsTests {
    @Test func adaptFlagsBecomeTheAdaptBlock() throws {
        let printed = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--print-config", "--size", "1280x720", "--fps", "30", "--adapt-cpu", "--adapt-min-size", "640x360",
            "--adapt-min-fps", "15", "--adapt-up-after", "1m", "--record", "/tmp/never.mp4",
        ], timeoutSeconds: 30).output
        for line in ["adapt:", "cpu: true", "min_size: 640x360", "min_fps: 15", "up_after: 1m"] {
            #expect(printed.contains(line), "\(line) in \(printed)")
        }
        let plain = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config", "--record", "/tmp/never.mp4"], timeoutSeconds: 30).output
        #expect(!plain.contains("adapt:"), "no adapt block without --adapt-cpu: \(plain)")
    }

    @Test(arguments: [
        (["--adapt-min-fps", "15"], "add --adapt-cpu"),
        (["--adapt-cpu", "--size", "1280x720", "--adapt-min-size", "1920x1080"], "cameras[0].adapt.min_size: min_size 1920x1080 is above the camera's size 1280x720"),
    ])
    func badAdaptFlagsFailNamingTheProblem(flags: [String], expected: String) throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream"] + flags + ["--record", "/tmp/never.mp4"], check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains(expected), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.mp4"))
    }
}
