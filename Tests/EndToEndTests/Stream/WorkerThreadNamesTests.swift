import Foundation
import Testing
import TestSupport

/// livepush names its long-lived threads for what they do and for whom, where `top -H` and the
/// benchmarks' per-thread CPU look (/proc/PID/task/*/comm), instead of leaving them all `livepush`.
@Suite(.timeLimit(.minutes(2))) struct WorkerThreadNamesTests {
    @Test func streamNamesItsCaptureMicrophoneEncoderAndRecorderThreads() throws {
        let directory = try TemporaryDirectory()
        // Bounded by --duration as well: the process ends by itself if the test stops waiting.
        let stream = try BackgroundProcess(try LivepushBinary.path(), ["stream", "--source", "testpattern", "--size", "320x240", "--fps", "15",
                                                                       "--audio", "alsa:null", "--record", directory.file("out.mp4"), "--duration", "30s"])
        let expected: Set = ["cap:cam0", "mic:cam0", "enc:main", "rec"]
        var names = Set<String>()
        let found = stream.waitUntil(timeoutSeconds: 20) {
            names = ThreadNames.of(stream)
            return expected.isSubset(of: names) || !stream.isRunning
        }
        #expect(found && expected.isSubset(of: names), "missing \(expected.subtracting(names)) among \(names.sorted()): \(stream.errorOutput.suffix(1500))")
        #expect(names.allSatisfy { $0.utf8.count <= 15 }, "\(names)")
        stream.kill(signal: SIGTERM)
        #expect(stream.wait(timeoutSeconds: 15) == 0, "\(stream.errorOutput.suffix(1500))")
    }
}
