import Foundation
import MediaCore

/// Picks format, size and frame rate from what a camera offers, the way the seeds do it:
///
/// 1. Size: the requested one, then ``CaptureConfig/fallbackSizes`` in order, then the smallest offered.
/// 2. Frame rate: the requested one if offered at that size, else the nearest (and a note says so).
/// 3. Pixel format: ``CaptureConfig/preferredPixelFormat`` if offered at that size; otherwise a raw
///    format (driver order: YUYV before NV12 on UVC) when it offers the chosen rate, else MJPEG —
///    the USB bus carries raw HD only at low rates, MJPEG at full rate.
///
/// Pure, so it is tested on tables of offers without a device.
public struct V4L2Negotiation: Sendable, Equatable {
    public var fourcc: V4L2FourCC
    public var pixelFormat: PixelFormat
    public var size: VideoSize
    public var interval: V4L2Fraction
    /// What differs from the request, for ``CaptureFormat/notes``.
    public var notes: [String]

    public init(offers formats: [V4L2FormatInfo], config: CaptureConfig, path: String) throws(CaptureError) {
        let usable = formats.filter { $0.fourcc.pixelFormat != nil && $0.modes.contains { !$0.intervals.isEmpty } }
        guard !usable.isEmpty else { throw .noSupportedFormat(path: path, offered: formats.map(\.fourcc.description)) }
        var notes: [String] = []

        let offered = usable.flatMap { format in format.modes.filter { !$0.intervals.isEmpty }.map(\.size) }
        let smallest = offered.min { $0.width * $0.height < $1.width * $1.height } ?? config.size
        let size = ([config.size] + config.fallbackSizes + [smallest]).first { offered.contains($0) } ?? smallest
        if size != config.size { notes.append("\(config.size) not offered, using \(size)") }

        let atSize = usable.filter { $0.intervals(at: size)?.isEmpty == false }
        let wanted = config.framesPerSecond
        func nearest(_ format: V4L2FormatInfo) -> V4L2Fraction {
            let intervals = format.intervals(at: size) ?? []
            return intervals.min { abs($0.framesPerSecond - wanted) < abs($1.framesPerSecond - wanted) } ?? intervals[0]
        }
        func isExact(_ interval: V4L2Fraction) -> Bool { abs(interval.framesPerSecond - wanted) < 0.01 }

        let preferred = config.preferredPixelFormat.flatMap { want in atSize.first { $0.fourcc.pixelFormat == want } }
        if let want = config.preferredPixelFormat, preferred == nil {
            notes.append("\(want) not offered at \(size), using another format")
        }
        let raw = atSize.filter { $0.fourcc.pixelFormat != .mjpeg }
        let rawFirst = raw + atSize.filter { $0.fourcc.pixelFormat == .mjpeg }
        let chosen = preferred
            ?? rawFirst.first { isExact(nearest($0)) }
            // nobody offers the rate: the closest rate wins, raw first on a tie
            ?? rawFirst.min { abs(nearest($0).framesPerSecond - wanted) < abs(nearest($1).framesPerSecond - wanted) }
        guard let chosen, let pixelFormat = chosen.fourcc.pixelFormat else {
            throw .noSupportedFormat(path: path, offered: formats.map(\.fourcc.description))
        }
        let interval = nearest(chosen)
        if !isExact(interval) {
            notes.append("\(Self.describe(framesPerSecond: wanted)) fps not offered at \(size) \(chosen.fourcc), using \(Self.describe(framesPerSecond: interval.framesPerSecond))")
        }
        self.fourcc = chosen.fourcc
        self.pixelFormat = pixelFormat
        self.size = size
        self.interval = interval
        self.notes = notes
    }

    /// "30", or "29.97" for fractional rates.
    public static func describe(framesPerSecond fps: Double) -> String {
        fps.rounded() == fps ? "\(Int(fps))" : String(format: "%.2f", fps)
    }
}
