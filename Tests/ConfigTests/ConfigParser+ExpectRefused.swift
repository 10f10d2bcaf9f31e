import Config
import Testing

extension ConfigParser {
    /// Records an issue unless `yaml` is refused with an error that starts with `expected` (the file,
    /// line and key path, then the message).
    func expectRefused(_ yaml: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try parse(yaml)
            Issue.record("accepted: \(yaml)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.description.hasPrefix(expected), "got: \(error.description)", sourceLocation: sourceLocation)
        }
    }
}
