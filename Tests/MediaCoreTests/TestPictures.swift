import MediaCore

/// Builds I420 buffers from tightly packed yuv420p bytes (what `ffmpeg -f rawvideo` writes).
enum TestPictures {
    static func i420(from bytes: [UInt8], width: Int, height: Int) throws -> I420Buffer {
        let buffer = try I420Buffer(width: width, height: height)
        try bytes.withUnsafeBytes { try buffer.convert(from: RawPicture(bytes: $0, format: .i420, width: width, height: height)) }
        return buffer
    }

    /// A deterministic picture with detail in every plane.
    static func gradient(width: Int, height: Int, seed: Int = 0) throws -> I420Buffer {
        let buffer = try I420Buffer(width: width, height: height)
        for (data, stride, w, h) in buffer.planes {
            for row in 0..<h {
                for column in 0..<w { data[row * stride + column] = UInt8(truncatingIfNeeded: row * 3 + column * 5 + seed) }
            }
        }
        return buffer
    }
}
