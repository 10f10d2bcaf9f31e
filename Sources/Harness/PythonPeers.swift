import Foundation

/// The Python peers of the WebRTC tests (aiortc, and Selenium driving headless Chromium), and the
/// Chromium player the recording tests use (`chromium_mp4.py`), and the aiortc receivers of the
/// benchmarks: their scripts and the venv that scripts/test-venv makes on first use.
public enum PythonPeers {
    /// The directory of the peer scripts.
    public static let scripts = Repository.root.appendingPathComponent("Tests/EndToEndTests/WebRTC/Peers").path

    /// The venv's python, made (bounded) if missing.
    public static func python() throws -> String {
        try ExternalTool.run(Repository.root.appendingPathComponent("scripts/test-venv").path, [], timeoutSeconds: 900)
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts the peer script `script` (in ``scripts``) with `arguments` under `python` (from
    /// ``python()``), inside `namespace` when given, its stdout and stderr in one log.
    public static func start(_ script: String, _ arguments: [String], python: String,
                             in namespace: LoopbackNamespace? = nil) throws -> BackgroundProcess {
        try BackgroundProcess(python, [scripts + "/" + script] + arguments, in: namespace, errorsInOutput: true)
    }

    /// The last line of a peer's stdout as a JSON object (the peers print one line as their result).
    public static func result(_ output: String) -> [String: Any]? {
        guard let line = output.split(separator: "\n").last else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }
}
