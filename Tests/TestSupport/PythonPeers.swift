import Foundation

/// The Python peers of the WebRTC tests (aiortc, and Selenium driving headless Chromium), and the
/// Chromium player the recording tests use (`chromium_mp4.py`): their scripts and the venv that
/// scripts/test-venv makes on first use.
public enum PythonPeers {
    /// The directory of the peer scripts.
    public static let scripts = LivepushBinary.repository.appendingPathComponent("Tests/WebRTCTransportTests/Peers").path

    /// The venv's python, made (bounded) if missing.
    public static func python() throws -> String {
        try ExternalTool.run(LivepushBinary.repository.appendingPathComponent("scripts/test-venv").path, [], timeoutSeconds: 900)
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The last line of a peer's stdout as a JSON object (the peers print one line as their result).
    public static func result(_ output: String) -> [String: Any]? {
        guard let line = output.split(separator: "\n").last else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }
}
