import COpenSSL

/// OpenSSL reports failures through a thread-local error queue; this drains it into one line for
/// ``DTLSError`` so a failure says which OpenSSL check tripped.
enum OpenSSLErrorQueue {
    /// What ``drain()`` says when OpenSSL queued nothing.
    static let empty = "no OpenSSL error recorded"

    /// Empties the queue so a later ``drain()`` reports only what the next call caused.
    static func clear() { ERR_clear_error() }

    /// All queued errors, oldest first, joined with "; " (bounded: OpenSSL keeps at most 16).
    static func drain() -> String {
        var messages: [String] = []
        for _ in 0..<16 {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? empty : messages.joined(separator: "; ")
    }
}
