import Foundation
import Server

/// The receivers of the WebRTC benchmark: aiortc scripts from the repository's test peers
/// (Tests/WebRTCTransportTests/Peers/aiortc_bench.py), run by the test venv's python
/// (scripts/test-venv makes .build-venv with aiortc).
struct BenchPeers {
    let python: String
    let script: String

    /// Finds the repository beside the web root this binary serves (a build in the repository).
    init(python explicitPython: String?) throws {
        guard let web = LivepushServer.findWebRoot(explicit: nil) else {
            throw ValidationErrorText("bench --only webrtc runs from a repository build (it uses the test peers in Tests/): web/ not found")
        }
        let repository = URL(fileURLWithPath: web).deletingLastPathComponent()
        script = repository.appendingPathComponent("Tests/WebRTCTransportTests/Peers/aiortc_bench.py").path
        python = explicitPython ?? repository.appendingPathComponent(".build-venv/bin/python").path
        guard FileManager.default.fileExists(atPath: script) else { throw ValidationErrorText("no receiver script at \(script)") }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ValidationErrorText("no python with aiortc at \(python): run scripts/test-venv, or pass --python")
        }
    }

    /// Starts aiortc_bench.py with `arguments` (see its usage).
    func receiver(_ arguments: [String], in namespace: BenchNamespace) throws -> BenchChild {
        try BenchChild(python, [script] + arguments, in: namespace)
    }
}
