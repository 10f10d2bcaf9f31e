/// Why one field of an SDP line did not parse. Value parsers throw it without knowing their line;
/// the session parser wraps it into ``WebRTCError/malformedLine(number:line:reason:)``.
struct SDPFieldError: Error {
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

extension Substring {
    /// The space-separated tokens of an SDP value (RFC 8866 §9 separates fields by one SP; runs of
    /// spaces are tolerated as real stacks emit them after `msid-semantic:`).
    var sdpFields: [Substring] {
        split(separator: " ", omittingEmptySubsequences: true)
    }
}

/// Parses a decimal integer field or names it in the error.
func sdpInteger<T: FixedWidthInteger>(_ text: Substring, _ field: String, as type: T.Type = T.self) throws(SDPFieldError) -> T {
    guard !text.isEmpty, text.allSatisfy(\.isASCII), let value = T(text, radix: 10) else {
        throw SDPFieldError("\(field) is not a number in range: \(text.prefix(32))")
    }
    return value
}
