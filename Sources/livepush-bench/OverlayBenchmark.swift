import Foundation
import MediaCore
import Overlay

/// The text overlay's cost per 720p frame: a date and clock with milliseconds (so the text, and its
/// glyphs, change every frame) in a box, drawn by livepush's TextOverlay on this thread, beside the
/// ffmpeg CLI's drawtext on the same size (its CPU with drawtext minus without, on a testsrc2 feed).
///
///     livepush-bench --only overlay [--frames 900]
struct OverlayBenchmark {
    var frames: Int
    static let (width, height) = (1280, 720)

    func run() throws -> BenchTable {
        var table = BenchTable(title: "Text overlay at 1280x720, clock with milliseconds in a box (\(frames) frames)",
                               columns: ["who", "CPU per frame", "share of one core at 30 fps"])
        let ours = try livepushSecondsPerFrame()
        let (withText, without) = try ffmpegSecondsPerFrame()
        func row(_ who: String, _ seconds: Double) -> [String] {
            [who, String(format: "%.1f µs", seconds * 1e6), String(format: "%.2f %%", seconds * 30 * 100)]
        }
        table.rows.append(row("livepush TextOverlay (FreeType + libyuv I420Blend)", ours))
        table.rows.append(row("ffmpeg -vf drawtext (with minus without)", max(0, withText - without)))
        return table
    }

    private func livepushSecondsPerFrame() throws -> Double {
        let buffer = try I420Buffer(width: Self.width, height: Self.height)
        buffer.fill(y: 120, u: 128, v: 128)
        let overlay = TextOverlay(camera: "cam0", settings: OverlaySettings(text: "%Y-%m-%d %H:%M:%S.%L {camera}", size: 32))
        var capture = MonotonicClock.nowNanos()
        overlay.process(VideoFrame(buffer: buffer, captureTimeNanos: capture))
        let start = BenchCPU.seconds(BenchCPU.thread)
        for _ in 0..<frames {
            capture += 33_333_333
            overlay.process(VideoFrame(buffer: buffer, captureTimeNanos: capture))
        }
        return (BenchCPU.seconds(BenchCPU.thread) - start) / Double(frames)
    }

    private func ffmpegSecondsPerFrame() throws -> (withText: Double, without: Double) {
        let input = ["-f", "lavfi", "-i", "testsrc2=size=\(Self.width)x\(Self.height):rate=30", "-frames:v", "\(frames)", "-threads", "1"]
        let drawtext = "drawtext=fontfile=\(OverlaySettings.defaultFont):fontsize=32:fontcolor=white:box=1:boxcolor=black@0.6:x=16:y=16:"
            + "text='%{localtime\\:%Y-%m-%d %H\\\\\\:%M\\\\\\:%S} %{eif\\:mod(t*1000\\,1000)\\:d\\:3} cam0'"
        let timeout = Double(frames) / 30 * 4 + 20
        let with = try BenchCPU.ffmpeg(input + ["-vf", drawtext, "-f", "null", "-"], timeoutSeconds: timeout)
        let without = try BenchCPU.ffmpeg(input + ["-f", "null", "-"], timeoutSeconds: timeout)
        return (with.cpu / Double(frames), without.cpu / Double(frames))
    }
}
