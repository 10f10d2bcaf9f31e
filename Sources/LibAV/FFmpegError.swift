import CFFmpeg

/// A failed FFmpeg call: which operation, FFmpeg's own error code, and its message.
public struct FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    public var operation: String
    public var code: Int32
    public var message: String

    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
        var text = [CChar](repeating: 0, count: 256)
        av_strerror(code, &text, text.count)
        message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public init(operation: String, message: String) {
        self.operation = operation
        code = 0
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }

    /// True for AVERROR(EAGAIN): "feed more input / read output first", not a failure.
    public var isAgain: Bool { code == lp_averror_eagain() }
    /// True for AVERROR_EOF: the stream ended.
    public var isEndOfFile: Bool { code == lp_averror_eof() }

    /// Throws when an FFmpeg return code is negative; returns it otherwise.
    @discardableResult
    public static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
        guard code >= 0 else { throw FFmpegError(operation: operation(), code: code) }
        return code
    }
}
