import Engine
import Output
import Synchronization
import Testing

/// An output configured `start: false`: the camera's start leaves it stopped (nothing made, no
/// connection), status says why; the API's start makes and runs it, the API's stop says so.
@Suite struct ControlledOutputStartStoppedTests {
    @Test func startsOnlyWhenResumedAndSaysWhyItIsStopped() async throws {
        let made = Mutex(0)
        let output = ControlledOutput(id: "youtube", kind: "rtmp", target: "rtmp://x/live2/***", startsStopped: true) {
            made.withLock { $0 += 1 }
            return ControlledOutputBitrateTests.CappingOutput(cap: 1_000_000)
        }
        try await output.start(OutputStartContext())
        #expect(made.withLock { $0 } == 0, "nothing is built (no connection) while configured stopped")
        #expect(!output.isRunning && output.status.state == .stopped)
        #expect(output.stateReason?.contains("configured to start stopped (start: false)") == true, "\(String(describing: output.stateReason))")

        try await output.resume()
        #expect(made.withLock { $0 } == 1 && output.isRunning)
        #expect(output.stateReason == nil, "a running output needs no reason")

        await output.stopThroughAPI()
        #expect(!output.isRunning && output.status.state == .stopped)
        #expect(output.stateReason?.contains("stopped through the API") == true, "\(String(describing: output.stateReason))")
    }

    @Test func anOutputThatStartsWithItsCameraRunsAtOnce() async throws {
        let made = Mutex(0)
        let output = ControlledOutput(id: "record", kind: "record", target: "/tmp/x.mp4") {
            made.withLock { $0 += 1 }
            return ControlledOutputBitrateTests.CappingOutput(cap: 1_000_000)
        }
        try await output.start(OutputStartContext())
        #expect(made.withLock { $0 } == 1 && output.isRunning && output.stateReason == nil)
        await output.stop()
        #expect(output.stateReason == nil, "a stop with the camera (not the API) gives no reason")
    }
}
