import Capture
import MediaCore
import Testing

/// Negotiation on tables of what cameras offer, no device needed.
struct V4L2NegotiationTests {
    static let hd = VideoSize(width: 1280, height: 720), fullHD = VideoSize(width: 1920, height: 1080), vga = VideoSize(width: 640, height: 480)

    static func rates(_ fps: Double...) -> [V4L2Fraction] { fps.map { V4L2Fraction(framesPerSecond: $0) } }

    /// A UVC webcam on USB 2: raw HD only at 5 fps, MJPEG at 30.
    static let webcam = [
        V4L2FormatInfo(fourcc: .yuyv, description: "YUYV", compressed: false,
                       modes: [V4L2Mode(size: vga, intervals: rates(30, 15)), V4L2Mode(size: hd, intervals: rates(30, 15)),
                               V4L2Mode(size: fullHD, intervals: rates(5))]),
        V4L2FormatInfo(fourcc: .mjpeg, description: "MJPEG", compressed: true,
                       modes: [V4L2Mode(size: vga, intervals: rates(30, 15)), V4L2Mode(size: hd, intervals: rates(30, 15)),
                               V4L2Mode(size: fullHD, intervals: rates(30, 15))]),
        V4L2FormatInfo(fourcc: .nv12, description: "NV12", compressed: false,
                       modes: [V4L2Mode(size: hd, intervals: rates(30))]),
    ]

    struct Case: Sendable, CustomStringConvertible {
        var size: VideoSize
        var fps: Double
        var preferred: PixelFormat?
        var fallbacks = CaptureConfig.defaultFallbackSizes
        var expected: (V4L2FourCC, VideoSize, Double)
        var noteCount: Int
        var description: String { "\(size)@\(fps) \(preferred.map(\.rawValue) ?? "-")" }
    }

    @Test(arguments: [
        Case(size: hd, fps: 30, preferred: nil, expected: (.yuyv, hd, 30), noteCount: 0),           // raw offered at rate: raw
        Case(size: fullHD, fps: 30, preferred: nil, expected: (.mjpeg, fullHD, 30), noteCount: 0),  // raw only at 5: MJPEG
        Case(size: fullHD, fps: 5, preferred: nil, expected: (.yuyv, fullHD, 5), noteCount: 0),     // raw at the low rate
        Case(size: hd, fps: 30, preferred: .nv12, expected: (.nv12, hd, 30), noteCount: 0),         // preference honoured
        Case(size: vga, fps: 30, preferred: .nv12, expected: (.yuyv, vga, 30), noteCount: 1),       // preference not offered
        Case(size: VideoSize(width: 1600, height: 900), fps: 30, preferred: nil, expected: (.mjpeg, fullHD, 30), noteCount: 1),
        Case(size: hd, fps: 24, preferred: nil, expected: (.yuyv, hd, 30), noteCount: 1),           // nearest rate, noted
        Case(size: hd, fps: 20, preferred: nil, expected: (.yuyv, hd, 15), noteCount: 1),
        Case(size: VideoSize(width: 320, height: 240), fps: 30, preferred: nil, fallbacks: [], expected: (.yuyv, vga, 30), noteCount: 1),
    ])
    func negotiates(_ test: Case) throws {
        let config = CaptureConfig(size: test.size, fallbackSizes: test.fallbacks, framesPerSecond: test.fps, preferredPixelFormat: test.preferred)
        let result = try V4L2Negotiation(offers: Self.webcam, config: config, path: "/dev/video9")
        #expect(result.fourcc == test.expected.0)
        #expect(result.size == test.expected.1)
        #expect(result.interval.framesPerSecond == test.expected.2)
        #expect(result.notes.count == test.noteCount, "\(result.notes)")
    }

    @Test func unusableFormatsAreReported() {
        let grey = [V4L2FormatInfo(fourcc: V4L2FourCC("GREY"), description: "Greyscale", compressed: false,
                                   modes: [V4L2Mode(size: Self.hd, intervals: Self.rates(30))])]
        #expect(throws: CaptureError.noSupportedFormat(path: "/dev/video9", offered: ["GREY"])) {
            try V4L2Negotiation(offers: grey, config: CaptureConfig(), path: "/dev/video9")
        }
    }

    @Test func fractionalRates() {
        #expect(V4L2Fraction(framesPerSecond: 29.97) == V4L2Fraction(numerator: 1000, denominator: 29970))
        #expect(V4L2Fraction(numerator: 1001, denominator: 30000).framesPerSecond > 29.9)
        #expect(V4L2Fraction(numerator: 0, denominator: 30).framesPerSecond == 0)
    }
}

/// Control names and values as users type them.
struct V4L2ControlNameTests {
    @Test(arguments: [
        ("White Balance Temperature, Auto", "white_balance_temperature_auto"),
        ("Exposure (Absolute)", "exposure_absolute"),
        ("Focus, Automatic Continuous", "focus_automatic_continuous"),
        ("Power Line Frequency", "power_line_frequency"),
        (" Brightness ", "brightness"),
    ])
    func keysMatchV4L2Ctl(label: String, key: String) {
        #expect(V4L2Control.key(forLabel: label) == key)
    }

    @Test func fourCCRoundTrip() {
        #expect(V4L2FourCC.yuyv.description == "YUYV")
        #expect(V4L2FourCC.mjpeg.pixelFormat == .mjpeg)
        #expect(V4L2FourCC(PixelFormat.nv12) == .nv12)
        #expect(V4L2FourCC("GREY").pixelFormat == nil)
    }

    @Test func cameraSelectorsParse() throws {
        #expect(try SourceSpec(parsing: "camera:0") == .camera("camera:0"))
        #expect(try SourceSpec(parsing: "camera:HD Pro Webcam") == .camera("camera:HD Pro Webcam"))
        #expect(try SourceSpec(parsing: "/dev/v4l/by-id/usb-cam-video-index0") == .camera("/dev/v4l/by-id/usb-cam-video-index0"))
        #expect(throws: CaptureError.unknownSource("camera:")) { try SourceSpec(parsing: "camera:") }
    }
}
