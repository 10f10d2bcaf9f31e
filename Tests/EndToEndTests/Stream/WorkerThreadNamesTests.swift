import Foundation
import Testing
import TestSupport

/// livepush names its long-lived threads for what they do and for whom, where `top -H` and the
/// benchmarks' per-thread CPU look (/proc/PID/task/*/comm), instead of leaving them all `livepush`.
@Suite(.timeLimit(.minutes(3))) struct WorkerThreadNamesTests {
    @Test func streamNamesItsCaptureMicrophoneEncoderAndRecorderThreads() throws {
        let directory = try TemporaryDirectory()
        // Bounded by --duration as well: the process ends by itself if the test stops waiting. The
        // wait is for the threads to exist, not a speed: the recorder's thread starts with the first
        // encoded frame, which a loaded machine's start-up can put late (the test failed once beside
        // builds, its message not kept; a 20 s wait was its only bound that a machine's speed could
        // break), so the bound is far past any start-up and the answer comes as soon as all four exist.
        let stream = try BackgroundProcess(try LivepushBinary.path(), ["stream", "--source", "testpattern", "--size", "320x240", "--fps", "15",
                                                                       "--audio", "alsa:null", "--record", directory.file("out.mp4"), "--duration", "120s"])
        let expected: Set = ["cap:cam0", "mic:cam0", "enc:main", "rec"]
        var names = Set<String>()
        let found = stream.waitUntil(timeoutSeconds: 100) {
            names = ThreadNames.of(stream)
            return expected.isSubset(of: names) || !stream.isRunning
        }
        #expect(found && expected.isSubset(of: names), "missing \(expected.subtracting(names)) among \(names.sorted()): \(stream.errorOutput.suffix(1500))")
        #expect(names.allSatisfy { $0.utf8.count <= 15 }, "\(names)")
        stream.kill(signal: SIGTERM)
        #expect(stream.wait(timeoutSeconds: 60) == 0, "\(stream.errorOutput.suffix(1500))")
    }
}
