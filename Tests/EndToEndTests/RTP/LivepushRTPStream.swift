import Foundation
import MediaCore
import TestSupport

/// `livepush stream --rtp` (the real binary, test pattern at 640x360) as the sender of a peer test.
struct LivepushRTPStream {
    static let width = 640
    static let height = 360

    let process: BackgroundProcess

    init(port: Int, arguments: [String] = [], seconds: Int = 30) throws {
        process = try BackgroundProcess(try LivepushBinary.path(), Self.arguments(port: port, seconds: seconds) + arguments)
    }

    /// The command line after the executable (a test pattern with a key frame every second).
    static func arguments(port: Int, seconds: Int) -> [String] {
        ["stream", "--size", "\(width)x\(height)", "--bitrate", "1M", "--keyint", "1", "--duration", "\(seconds)s", "--rtp", "rtp://127.0.0.1:\(port)"]
    }

    /// Waits (bounded) for livepush to write the SDP file once its first frame is out.
    func waitForSessionDescription(at path: String, timeoutSeconds: Double = 20) -> String? {
        _ = process.waitUntil(timeoutSeconds: timeoutSeconds) { FileManager.default.fileExists(atPath: path) || !process.isRunning }
        return try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// Frame codes of raw I420 frames of the stream's size, as ffmpeg wrote them.
    static func frameCodes(ofRawI420 bytes: [UInt8]) -> [FrameCode?] {
        let frameSize = width * height * 3 / 2
        return stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize).map { offset in
            bytes.withUnsafeBufferPointer { all in
                all.baseAddress.flatMap { FrameCode.read(luma: $0 + offset, stride: width, width: width, height: height) }
            }
        }
    }
}
