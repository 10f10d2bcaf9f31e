import Foundation

/// Polls `condition` every 50 ms until it holds or `seconds` have passed, then gives its last answer.
/// For tests that wait on a peer's or an output's state: the bound only ends a hang, so a slow
/// machine takes longer but gets the same verdict.
public func eventually(within seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
