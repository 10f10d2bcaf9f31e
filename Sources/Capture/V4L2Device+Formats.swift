import CV4L2
import Foundation
import MediaCore

/// Format enumeration and selection: ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS, G/S_FMT, G/S_PARM.
extension V4L2Device {
    /// Sizes and rates sampled from stepwise ranges, so a continuous-range camera still lists
    /// (and negotiates) the sizes people ask for.
    static let commonSizes = [(320, 240), (640, 480), (800, 600), (1280, 720), (1920, 1080), (2560, 1440), (3840, 2160)]
        .map { VideoSize(width: $0.0, height: $0.1) }
    static let commonRates: [Double] = [60, 50, 30, 25, 24, 20, 15, 10, 5]
    /// Upper bound on any enumeration loop, in case a driver never answers EINVAL.
    static let enumerationLimit: UInt32 = 256

    /// Every capture format with its sizes and rates. `extraSizes` are added to stepwise ranges
    /// (the size being negotiated), so a range that contains them offers them exactly.
    public func formats(extraSizes: [VideoSize] = []) throws(CaptureError) -> [V4L2FormatInfo] {
        var formats: [V4L2FormatInfo] = []
        for index in 0..<Self.enumerationLimit {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            let code = request(lp_VIDIOC_ENUM_FMT(), &description)
            if code == EINVAL { break }
            guard code == 0 else { throw error(code, operation: "VIDIOC_ENUM_FMT") }
            let fourcc = V4L2FourCC(rawValue: description.pixelformat)
            let (sizes, stepwise) = try frameSizes(fourcc, extraSizes: extraSizes)
            var modes: [V4L2Mode] = []
            for size in sizes { modes.append(V4L2Mode(size: size, intervals: try frameIntervals(fourcc, size: size))) }
            formats.append(V4L2FormatInfo(fourcc: fourcc, description: V4L2Text.string(description.description),
                                          compressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                                          stepwise: stepwise, modes: modes))
        }
        return formats
    }

    /// ENUM_FRAMESIZES: the discrete sizes, or samples of a stepwise/continuous range.
    func frameSizes(_ fourcc: V4L2FourCC, extraSizes: [VideoSize]) throws(CaptureError) -> (sizes: [VideoSize], stepwise: Bool) {
        var sizes: [VideoSize] = []
        for index in 0..<Self.enumerationLimit {
            var entry = v4l2_frmsizeenum()
            entry.index = index
            entry.pixel_format = fourcc.rawValue
            let code = request(lp_VIDIOC_ENUM_FRAMESIZES(), &entry)
            if code == EINVAL || code == ENOTTY { break }
            guard code == 0 else { throw error(code, operation: "VIDIOC_ENUM_FRAMESIZES") }
            guard entry.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue else {
                let range = entry.stepwise
                let minimum = VideoSize(width: Int(range.min_width), height: Int(range.min_height))
                let maximum = VideoSize(width: Int(range.max_width), height: Int(range.max_height))
                let stepWidth = max(1, Int(range.step_width)), stepHeight = max(1, Int(range.step_height))
                let inside = (Self.commonSizes + extraSizes).filter { size in
                    (minimum.width...maximum.width).contains(size.width) && (minimum.height...maximum.height).contains(size.height)
                        && (size.width - minimum.width) % stepWidth == 0 && (size.height - minimum.height) % stepHeight == 0
                }
                var sampled: [VideoSize] = []
                for size in [minimum] + inside + [maximum] where !sampled.contains(size) { sampled.append(size) }
                return (sampled.sorted { $0.width * $0.height < $1.width * $1.height }, true)
            }
            sizes.append(VideoSize(width: Int(entry.discrete.width), height: Int(entry.discrete.height)))
        }
        return (sizes, false)
    }

    /// ENUM_FRAMEINTERVALS at one size: the discrete intervals, or samples of a range.
    func frameIntervals(_ fourcc: V4L2FourCC, size: VideoSize) throws(CaptureError) -> [V4L2Fraction] {
        var intervals: [V4L2Fraction] = []
        for index in 0..<Self.enumerationLimit {
            var entry = v4l2_frmivalenum()
            entry.index = index
            entry.pixel_format = fourcc.rawValue
            entry.width = UInt32(size.width)
            entry.height = UInt32(size.height)
            let code = request(lp_VIDIOC_ENUM_FRAMEINTERVALS(), &entry)
            if code == EINVAL || code == ENOTTY { break }
            guard code == 0 else { throw error(code, operation: "VIDIOC_ENUM_FRAMEINTERVALS") }
            guard entry.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue else {
                let fastest = V4L2Fraction(entry.stepwise.min), slowest = V4L2Fraction(entry.stepwise.max)
                let inside = Self.commonRates.filter { $0 < fastest.framesPerSecond && $0 > slowest.framesPerSecond }
                return [fastest] + inside.map { V4L2Fraction(framesPerSecond: $0) } + [slowest]
            }
            intervals.append(V4L2Fraction(entry.discrete))
        }
        return intervals
    }

    /// G_FMT: the current format.
    public func currentFormat() throws(CaptureError) -> v4l2_pix_format {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try perform(lp_VIDIOC_G_FMT(), "VIDIOC_G_FMT", &format)
        return format.fmt.pix
    }

    /// S_FMT: asks for a format and size; returns what the driver set (it may adjust both).
    public func setFormat(_ fourcc: V4L2FourCC, size: VideoSize) throws(CaptureError) -> v4l2_pix_format {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.pixelformat = fourcc.rawValue
        format.fmt.pix.width = UInt32(size.width)
        format.fmt.pix.height = UInt32(size.height)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try perform(lp_VIDIOC_S_FMT(), "VIDIOC_S_FMT", &format)
        return format.fmt.pix
    }

    /// G_PARM: the current frame interval, or nil when the driver cannot report one.
    public func frameInterval() throws(CaptureError) -> V4L2Fraction? {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let code = request(lp_VIDIOC_G_PARM(), &parameters)
        if code == EINVAL || code == ENOTTY { return nil }
        guard code == 0 else { throw error(code, operation: "VIDIOC_G_PARM") }
        let interval = V4L2Fraction(parameters.parm.capture.timeperframe)
        return interval.framesPerSecond > 0 ? interval : nil
    }

    /// S_PARM: asks for a frame interval; returns the one set, or nil when the driver has no
    /// frame-rate control (`V4L2_CAP_TIMEPERFRAME` missing).
    public func setFrameInterval(_ interval: V4L2Fraction) throws(CaptureError) -> V4L2Fraction? {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: interval.numerator, denominator: interval.denominator)
        let code = request(lp_VIDIOC_S_PARM(), &parameters)
        if code == EINVAL || code == ENOTTY { return nil }
        guard code == 0 else { throw error(code, operation: "VIDIOC_S_PARM") }
        let set = V4L2Fraction(parameters.parm.capture.timeperframe)
        return set.framesPerSecond > 0 ? set : nil
    }
}

extension V4L2Fraction {
    init(_ raw: v4l2_fract) { self.init(numerator: raw.numerator, denominator: raw.denominator) }
}
