import Foundation

/// The checkout the harness was built from: the peers' scripts, scripts/test-venv and the test
/// fixtures live there (a test bundle or a benchmark built in the repository runs from it).
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
