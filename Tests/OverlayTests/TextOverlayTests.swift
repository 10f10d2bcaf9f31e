import Foundation
import MediaCore
import Overlay
import Testing
import TestSupport

/// The overlay burned into real frames and read back with tesseract, and its template's fields.
@Suite struct TextOverlayTests {
    /// 2026-11-25 12:34:56.789 UTC as seconds since 1970.
    static let moment = 1_795_610_096

    static func expand(_ template: String, camera: String = "cam0", seconds: Int = moment, milliseconds: Int = 789) -> String {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        let count = OverlayText(template: template, camera: camera).expand(seconds: seconds, milliseconds: milliseconds, into: buffer)
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    @Test func templatesExpandTimeMillisecondsAndCamera() {
        setenv("TZ", "UTC", 1)
        tzset()
        #expect(Self.expand("%Y-%m-%d %H:%M:%S.%L {camera}") == "2026-11-25 12:34:56.789 cam0")
        #expect(Self.expand("%L|%L", milliseconds: 7) == "007|007")
        #expect(Self.expand("{camera} 100%%", camera: "porch%d") == "porch%d 100%")
        #expect(Self.expand("score 3-1") == "score 3-1")
        #expect(Self.expand(String(repeating: "x", count: 300)) == "", "too long for the buffer: nothing, never a crash")
    }

    @Test func colorsParse() {
        #expect(YUVColor(parsing: "white") == YUVColor(y: 235, u: 128, v: 128))
        #expect(YUVColor(parsing: "#000000") == YUVColor(y: 16, u: 128, v: 128))
        #expect(YUVColor(parsing: "#ff0000")?.v == 240)
        #expect(YUVColor(parsing: "#12345") == nil && YUVColor(parsing: "purple-ish") == nil)
    }

    /// The text drawn on a busy background is what tesseract reads; each corner puts it there.
    @Test(arguments: OverlaySettings.Position.allCases)
    func drawnTextReadsBack(position: OverlaySettings.Position) throws {
        let directory = try TemporaryDirectory()
        let buffer = try I420Buffer(width: 640, height: 360)
        for (index, color) in YUVColor.colorBars.enumerated() {
            buffer.fillRect(x: index * 80, y: 0, width: 80, height: 360, color: color)
        }
        let overlay = TextOverlay(camera: "porch", settings: OverlaySettings(text: "LIVEPUSH {camera} 42", position: position, size: 32))
        overlay.process(VideoFrame(buffer: buffer, captureTimeNanos: MonotonicClock.nowNanos()))
        let image = directory.file("frame.png")
        try TesseractOCR.writePNG(i420: buffer.packedBytes(), width: 640, height: 360, to: image)
        let text = try TesseractOCR.lightText(inImage: image)
        #expect(text.contains("LIVEPUSH porch 42"), "tesseract read: \(text)")
        // The box sits in the named corner: its pixels there are darker than the bars' average.
        let top = position == .topLeft || position == .topRight
        let left = position == .topLeft || position == .bottomLeft
        let probe = (x: left ? 20 : 620, y: top ? 20 : 340)
        #expect(buffer.dataY[probe.y * buffer.strideY + probe.x] < 130, "box at \(position)")
    }

    @Test func aMissingFontIsAClearError() {
        do {
            try TextOverlay.validate(OverlaySettings(text: "x", fontPath: "/nonexistent.ttf"))
            Issue.record("a missing font was accepted")
        } catch {
            #expect(error.description.contains("/nonexistent.ttf") && error.description.contains("fonts-dejavu-core"), "\(error)")
        }
    }
}
