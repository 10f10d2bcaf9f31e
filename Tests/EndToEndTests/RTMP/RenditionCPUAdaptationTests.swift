import Codec
import Foundation
import Testing
import TestSupport

/// CPU adaptation across renditions end to end (issue 16, part 1): `livepush stream --adapt-cpu`
/// with two renditions of one test pattern, `hd` at capture size and `sd` below it, each recorded.
/// The lowest-priority rendition (`sd`) must give way first and `hd` only after it; once the load
/// lifts the top rendition climbs back first; both recordings decode, at the sizes the steps named,
/// in their order.
///
/// The overload is a CPU quota sized from the job's own cost, measured uncapped in the same run
/// (``CPUQuota``): an eighth of it leaves every rung, the floor's too, overloaded on any machine,
/// and lifting the cap gives back what the job had when it was measured. Busy loops beside it
/// made the verdict follow the machine's speed (on a slow one the ladder never climbed back).
///
/// The order is read from the steps `stream` logs (one line each, with the rendition's name), the
/// rungs from its per-rendition status and summary; no assertion is on speed, every wait is bounded.
@Suite(.serialized, .timeLimit(.minutes(8))) struct RenditionCPUAdaptationTests {
    /// The capture and the two renditions, top first.
    static let capture = AdaptationLadder.Rung(width: 1280, height: 720, framesPerSecond: 30)
    static let renditions = [("hd", capture), ("sd", AdaptationLadder.Rung(width: 640, height: 360, framesPerSecond: 30))]
    /// A floor of 480x270 at the full rate: every step changes the picture size (sd has one step, hd three).
    static let settings = CPUAdaptationSettings(minimumWidth: 480, minimumHeight: 270, minimumFramesPerSecond: 30, upAfterSeconds: 4)
    /// The share of the job's measured cost the cap leaves it: the floor's two 480x270 encodes are
    /// over a fifth of the top's pixels, so an eighth overloads every rung.
    static let cappedShare = 0.125

    static func ladder(_ name: String) -> AdaptationLadder {
        let rung = renditions.first { $0.0 == name }?.1 ?? capture
        return AdaptationLadder(width: rung.width, height: rung.height, framesPerSecond: rung.framesPerSecond, settings: settings)
    }

    @Test func theLowestRenditionGivesWayFirstAndTheTopClimbsBackFirst() throws {
        let ladders = Dictionary(uniqueKeysWithValues: Self.renditions.map { ($0.0, Self.ladder($0.0)) })
        let sdLadder = try #require(ladders["sd"]), hdLadder = try #require(ladders["hd"])
        try #require(sdLadder.rungs.count == 2 && hdLadder.rungs.count == 4, "the ladders this test expects: \(sdLadder.rungs), \(hdLadder.rungs)")
        let dir = try TemporaryDirectory()
        // x264 ultrafast: uncapped, both encodes use a small share of their frame interval, so once the
        // cap is lifted each has the headroom (usage under 0.5) a step up needs, on a busy machine too. --duration bounds the run if the test dies.
        let quota = try CPUQuota()
        let livepush = try quota.livepush(["stream", "--source", "testpattern", "--size", "1280x720", "--fps", "30",
                                           "--encoder", "libx264", "--preset", "ultrafast", "--keyint", "2",
                                           "--rendition", "hd=1280x720@30:2M", "--rendition", "sd=640x360@30:600k",
                                           "--adapt-cpu", "--adapt-min-size", "480x270", "--adapt-min-fps", "30", "--adapt-up-after", "4s",
                                           "--duration", "360s", "--record", "hd=\(dir.file("hd.mp4"))", "--record", "sd=\(dir.file("sd.mp4"))"])
        defer { livepush.kill(signal: SIGKILL); livepush.wait(timeoutSeconds: 5) }
        func steps() -> [LoggedAdaptationStep] { LoggedAdaptationStep.all(in: livepush.errorOutput) }
        func context() -> String {
            "steps:\n\(steps().map { "  \($0)" }.joined(separator: "\n"))\nstatus: \(livepush.output.split(separator: "\n").suffix(4).joined(separator: "\n"))\n"
                + "\(livepush.errorOutput.suffix(1500))"
        }

        // 0. The job's cost uncapped, once both encoders run.
        // A machine busy with other work may step it before the cap: the order below holds all the same.
        let cost = try #require(CPUQuota.steadyCores(of: livepush), "livepush never encoded: \(context())")
        try quota.cap(cores: cost * Self.cappedShare)

        // 1. Under the cap the first step is sd's, to its next rung; hd does not change before it.
        #expect(livepush.waitUntil(timeoutSeconds: 120) { !steps().isEmpty }, "never stepped down (cost \(cost) cores): \(context())")
        let first = try #require(steps().first, "no step logged: \(context())")
        #expect(first.rendition == "sd" && first.from == sdLadder.rungs[0] && first.to == sdLadder.rungs[1],
                "the first step is sd's, \(sdLadder.rungs[0]) → \(sdLadder.rungs[1]): \(context())")
        // sd is at its floor now, so each further overload steps hd, down to its floor: every rung is over the cap.
        #expect(livepush.waitUntil(timeoutSeconds: 120) { steps().contains { $0.rendition == "hd" && $0.to == hdLadder.rungs.last } },
                "hd never reached its floor, \(hdLadder.rungs.last!) (cost \(cost) cores, capped at \(cost * Self.cappedShare)): \(context())")

        // 2. The cap lifts: the first step up is the top rendition's that is below its configured rung.
        try quota.lift()
        let atLift = steps()
        let rungsAtLift = LoggedAdaptationStep.rungs(after: atLift, starting: Dictionary(uniqueKeysWithValues: Self.renditions.map { ($0.0, $0.1) }))
        let climber = Self.renditions.first { rungsAtLift[$0.0] != $0.1 }?.0
        #expect(livepush.waitUntil(timeoutSeconds: 150) { steps().dropFirst(atLift.count).contains { !$0.isDown } }, "never climbed back: \(context())")
        let firstUp = steps().dropFirst(atLift.count).first { !$0.isDown }
        #expect(climber != nil && firstUp?.rendition == climber, "the first step up is \(climber ?? "none")'s: \(context())")
        // Let the rung it climbed to reach the recordings.
        Thread.sleep(forTimeInterval: 3)

        livepush.kill(signal: SIGINT)
        #expect(livepush.wait(timeoutSeconds: 30) == 0, "livepush stops cleanly: \(livepush.errorOutput.suffix(2000))")
        let all = steps()

        // 3. The order held throughout: hd stepped down only with sd at its floor, sd stepped up only with hd at its top.
        var rungs = Dictionary(uniqueKeysWithValues: Self.renditions.map { ($0.0, $0.1) })
        for step in all {
            #expect(rungs[step.rendition] == step.from, "\(step) starts where the last step left \(step.rendition): \(context())")
            if step.rendition == "hd", step.isDown { #expect(rungs["sd"] == sdLadder.rungs.last, "hd stepped down before sd was at its floor: \(step)") }
            if step.rendition == "sd", !step.isDown { #expect(rungs["hd"] == Self.capture, "sd stepped up before hd was back at its top: \(step)") }
            rungs[step.rendition] = step.to
        }
        // Each rendition's summary line names the rung the last logged step left it at.
        for (name, _) in Self.renditions {
            let rung = try #require(rungs[name])
            let line = livepush.output.split(separator: "\n").last { $0.hasPrefix("  rendition \(name) ") }
            #expect(line?.contains("cpu adaptation: at \(rung) ") == true, "the summary gives \(name)'s rung, \(rung): \(livepush.output.suffix(1500))")
        }
        #expect(livepush.output.contains("adapt hd "), "the status line gives each rendition's rung: \(livepush.output.prefix(1500))")

        // 4. Each recording decodes, its pictures changing size as that rendition's steps did, each step
        //    in a new file. A rung may have no frame of its own: the last step can come too late, and
        //    under heavy load a next step can come before the encoder reopened at the rung before it
        //    (seen: 1280x720 → 960x540 → 640x360 with no 960x540 frame). So the recorded sizes are the
        //    steps' sizes in their order, none other, some perhaps left out.
        for (name, start) in Self.renditions {
            let files = try Self.recordingFiles(name, in: dir)
            #expect(files.count > 1 && livepush.output.contains("    files: " + files.joined(separator: ", ")),
                    "the summary names \(name)'s files, \(files): \(livepush.output.suffix(1500))")
            let frames = try files.flatMap { try FFmpegCLI.videoFrames($0) }
            #expect(frames.count > 100, "\(name): \(frames.count) frames decoded")
            let recorded = Self.sizeChanges(frames.map { "\($0.width)x\($0.height)" })
            let stepped = Self.sizeChanges(["\(start.width)x\(start.height)"] + all.filter { $0.rendition == name }.map { "\($0.to.width)x\($0.to.height)" })
            #expect(recorded.count > 1 && recorded.first == stepped.first && Self.isInOrder(recorded, within: stepped),
                    "\(name): recorded sizes \(recorded), the steps named \(stepped)")
        }
    }

    /// A recording's files in order: `NAME.mp4`, then `NAME-001.mp4`, … that each step continued in.
    static func recordingFiles(_ name: String, in dir: TemporaryDirectory) throws -> [String] {
        let continuations = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix("\(name)-") && $0.hasSuffix(".mp4") }.sorted()
        return [dir.file("\(name).mp4")] + continuations.map { dir.file($0) }
    }

    /// Whether `part`'s elements appear in `whole` in the same order (a subsequence).
    static func isInOrder(_ part: [String], within whole: [String]) -> Bool {
        var rest = whole[...]
        for element in part {
            guard let at = rest.firstIndex(of: element) else { return false }
            rest = rest[rest.index(after: at)...]
        }
        return true
    }

    /// The sizes in order, each run of one size once.
    static func sizeChanges(_ sizes: [String]) -> [String] {
        sizes.enumerated().filter { $0.offset == 0 || sizes[$0.offset - 1] != $0.element }.map(\.element)
    }
}

/// One CPU adaptation step as `stream` logs it (swift-log's line, the rendition in its metadata):
/// `… warning livepush.stream : rendition=sd [Pipeline] encoder overloaded: …; stepping 640x360@30 → 480x270@30`.
struct LoggedAdaptationStep: Equatable, CustomStringConvertible {
    var rendition: String
    var from: AdaptationLadder.Rung
    var to: AdaptationLadder.Rung

    /// Down when the new rung has fewer pixels per second.
    var isDown: Bool { to.width * to.height * to.framesPerSecond < from.width * from.height * from.framesPerSecond }

    var description: String { "\(rendition) \(from) → \(to)" }

    /// Every step in the log, in the order they were logged.
    static func all(in log: String) -> [LoggedAdaptationStep] {
        let step = /rendition=(\w+) .*stepping (\d+)x(\d+)@(\d+) → (\d+)x(\d+)@(\d+)/
        return log.split(separator: "\n").compactMap { line in
            guard let match = line.firstMatch(of: step), let fromWidth = Int(match.2), let fromHeight = Int(match.3), let fromRate = Int(match.4),
                  let toWidth = Int(match.5), let toHeight = Int(match.6), let toRate = Int(match.7) else { return nil }
            return LoggedAdaptationStep(rendition: String(match.1),
                                        from: AdaptationLadder.Rung(width: fromWidth, height: fromHeight, framesPerSecond: fromRate),
                                        to: AdaptationLadder.Rung(width: toWidth, height: toHeight, framesPerSecond: toRate))
        }
    }

    /// Each rendition's rung after `steps`, from `starting` (its configured rung).
    static func rungs(after steps: [LoggedAdaptationStep], starting: [String: AdaptationLadder.Rung]) -> [String: AdaptationLadder.Rung] {
        steps.reduce(into: starting) { $0[$1.rendition] = $1.to }
    }
}
