import Foundation
import Harness
import MediaCore

/// The frame codes (``FrameCode``) of every frame of a recording, decoded by the ffmpeg CLI: how
/// tests check that frames went end to end complete and in order.
public enum RecordedFrameCodes {
    /// One entry per decoded frame; nil where the code does not read back (a no-signal card).
    public static func read(_ path: String, width: Int, height: Int) throws -> [FrameCode?] {
        let dir = try TemporaryDirectory()
        try FFmpegCLI.ffmpeg(["-i", path, "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "rawvideo", dir.file("out.yuv")])
        let bytes = try FFmpegCLI.bytes(of: dir.file("out.yuv"))
        let size = RawPicture.packedSize(format: .i420, width: width, height: height)
        let buffer = try I420Buffer(width: width, height: height)
        return try stride(from: 0, to: bytes.count - size + 1, by: size).map { offset in
            try bytes[offset..<(offset + size)].withUnsafeBytes {
                try buffer.convert(from: RawPicture(bytes: $0, format: .i420, width: width, height: height))
            }
            return FrameCode.read(from: buffer)
        }
    }
}
