#if canImport(Glibc)
import Glibc
#endif

/// Expands an overlay template for one moment: strftime fields in local time, `%L` for the
/// milliseconds, `{camera}` for the camera's id. The C library's strftime writes into a buffer the
/// caller owns, so a frame's text costs no allocation.
public struct OverlayText: Sendable {
    public let template: String
    /// The template with `{camera}` filled in and `%L` turned into a marker byte strftime copies through.
    private let format: [CChar]
    private static let millisecondMarker: UInt8 = 0x01

    public init(template: String, camera: String) {
        self.template = template
        let withCamera = template.replacing("{camera}", with: camera.replacing("%", with: "%%"))
        format = Array(withCamera.replacing("%L", with: "\u{1}").utf8CString)
    }

    /// Writes the UTF-8 text for wall-clock time `seconds` + `milliseconds` (local time zone) into
    /// `buffer`; returns its length (0 when it does not fit).
    public func expand(seconds: Int, milliseconds: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var time = time_t(seconds), parts = tm()
        localtime_r(&time, &parts)
        guard let base = buffer.baseAddress, buffer.count > 1 else { return 0 }
        var count = format.withUnsafeBufferPointer { format in
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { strftime($0, buffer.count, format.baseAddress!, &parts) }
        }
        // Each marker becomes three digits, moving the rest along (right to left, in place).
        var index = count - 1
        while index >= 0 {
            if buffer[index] == Self.millisecondMarker {
                guard count + 2 <= buffer.count else { return 0 }
                (base + index + 3).update(from: base + index + 1, count: count - index - 1)
                let value = max(0, min(999, milliseconds))
                buffer[index] = UInt8(ascii: "0") + UInt8(value / 100)
                buffer[index + 1] = UInt8(ascii: "0") + UInt8(value / 10 % 10)
                buffer[index + 2] = UInt8(ascii: "0") + UInt8(value % 10)
                count += 2
            }
            index -= 1
        }
        return count
    }
}
