import CFFmpeg
import Foundation
import MediaCore

/// YUYV→I420 and NV12→I420 through livepush (libyuv) beside memcpy of the same bytes and
/// libswscale doing the same conversion, at 720p and 1080p.
struct ConversionBenchmark {
    var frames: Int

    func run() throws -> BenchTable {
        var table = BenchTable(title: "Pixel conversion to I420 (best of 3 × \(frames) frames)",
                               columns: ["size", "conversion", "livepush (libyuv) fps", "GB/s", "memcpy fps", "GB/s", "libswscale fps", "GB/s", "livepush vs memcpy"])
        for (width, height) in [(1280, 720), (1920, 1080)] {
            for format in [PixelFormat.yuyv, .nv12] {
                let size = RawPicture.packedSize(format: format, width: width, height: height)
                var input = [UInt8](repeating: 0, count: size)
                for index in input.indices { input[index] = UInt8(truncatingIfNeeded: index &* 2654435761 >> 13) }
                let output = try I420Buffer(width: width, height: height)
                let ours = try input.withUnsafeBytes { bytes in
                    try measure { try output.convert(from: RawPicture(bytes: bytes, format: format, width: width, height: height)) }
                }
                var copyTarget = [UInt8](repeating: 0, count: size)
                let copy = measure { copyTarget.withUnsafeMutableBytes { target in input.withUnsafeBytes { target.copyMemory(from: $0) } } }
                let swscale = try SwscaleConverter(format: format, width: width, height: height)
                let reference = try measure { try swscale.convert(input, into: output) }
                func gbps(_ seconds: Double) -> String { String(format: "%.2f", Double(size * frames) / seconds / 1e9) }
                func fps(_ seconds: Double) -> String { String(format: "%.0f", Double(frames) / seconds) }
                table.rows.append(["\(width)x\(height)", "\(format)→I420", fps(ours), gbps(ours), fps(copy), gbps(copy),
                                   fps(reference), gbps(reference), String(format: "%.2f×", ours / copy)])
            }
        }
        return table
    }

    /// Seconds for `frames` runs of `body` after one warm-up run: the best of three rounds, so a
    /// neighbour's burst of CPU on a shared machine does not decide the ranking.
    private func measure(_ body: () throws -> Void) rethrows -> Double {
        try body()
        var best = Double.infinity
        for _ in 0..<3 {
            let start = MonotonicClock.nowNanos()
            for _ in 0..<frames { try body() }
            best = min(best, Double(MonotonicClock.nowNanos() - start) / 1e9)
        }
        return best
    }
}

/// libswscale doing a packed/semi-planar → yuv420p conversion, as the reference to beat.
final class SwscaleConverter {
    private let context: OpaquePointer
    private let format: PixelFormat
    private let width: Int
    private let height: Int

    init(format: PixelFormat, width: Int, height: Int) throws {
        let source = format == .yuyv ? AV_PIX_FMT_YUYV422 : AV_PIX_FMT_NV12
        guard let context = sws_getContext(Int32(width), Int32(height), source, Int32(width), Int32(height), AV_PIX_FMT_YUV420P,
                                           SWS_BILINEAR, nil, nil, nil) else {
            throw ValidationErrorText("libswscale cannot convert \(format)")
        }
        self.context = context
        self.format = format
        self.width = width
        self.height = height
    }

    deinit { sws_freeContext(context) }

    func convert(_ input: [UInt8], into output: I420Buffer) throws {
        try input.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            var source: [UnsafePointer<UInt8>?] = format == .yuyv ? [base, nil, nil, nil] : [base, base + width * height, nil, nil]
            var sourceLines: [Int32] = format == .yuyv ? [Int32(width * 2), 0, 0, 0] : [Int32(width), Int32(width), 0, 0]
            var destination: [UnsafeMutablePointer<UInt8>?] = [output.dataY, output.dataU, output.dataV, nil]
            var destinationLines: [Int32] = [Int32(output.strideY), Int32(output.strideU), Int32(output.strideV), 0]
            guard sws_scale(context, &source, &sourceLines, 0, Int32(height), &destination, &destinationLines) == Int32(height) else {
                throw ValidationErrorText("sws_scale failed")
            }
        }
    }
}

struct ValidationErrorText: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
