import Foundation
import Testing
import TestSupport

/// The overlay as a viewer sees it, read back with tesseract: burned into the encoded stream with a
/// running clock (`stream --overlay`, a recording decoded by ffmpeg), and changed live through the
/// API (`serve`, the snapshot after the change).
@Suite(.serialized) struct OverlayReadBackTests {
    /// The HH:MM:SS.mmm the OCR found, as seconds of the day.
    static func clockSeconds(in text: String) -> Double? {
        guard let match = text.firstMatch(of: /(\d\d):(\d\d):(\d\d)\.(\d\d\d)/) else { return nil }
        return Double(Int(match.1)! * 3600 + Int(match.2)! * 60 + Int(match.3)!) + Double(Int(match.4)!) / 1000
    }

    @Test func theClockIsInTheStreamAndAdvances() throws {
        let directory = try TemporaryDirectory()
        let recording = directory.file("clock.mp4")
        let run = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--size", "640x360", "--fps", "15", "--preset", "ultrafast", "--bitrate", "1M",
                                                                    "--overlay", "LIVE %H:%M:%S.%L {camera}", "--overlay-position", "bottom-left",
                                                                    "--record", recording, "--duration", "4s"], timeoutSeconds: 60)
        #expect(run.status == 0, "\(run.errorOutput.suffix(1000))")
        var clocks: [Double] = []
        for second in [1, 3] {
            let image = directory.file("at\(second).png")
            _ = try ExternalTool.run("ffmpeg", ["-v", "error", "-y", "-ss", "\(second)", "-i", recording, "-frames:v", "1", image], timeoutSeconds: 30)
            let text = try TesseractOCR.lightText(inImage: image, crop: "iw*3/4:ih/4:0:ih*3/4")
            // Tesseract reads this font's 0 as O now and then; the letters and the clock are what count.
            #expect(text.contains("LIVE") && text.replacingOccurrences(of: "O", with: "0").contains("cam0"), "at \(second) s tesseract read: \(text)")
            if let clock = Self.clockSeconds(in: text) { clocks.append(clock) } else { Issue.record("no clock at \(second) s: \(text)") }
        }
        if clocks.count == 2 {
            let step = clocks[1] - clocks[0]
            #expect(step > 1.5 && step < 2.5, "two seconds of stream apart, the clock moved \(step) s: \(clocks)")
        }
    }

    @Test func theAPIChangesTheTextLive() throws {
        let serve = try ServeUnderTest(yaml: """
            listen: 127.0.0.1:0
            cameras:
              - id: cam0
                size: 640x360
                fps: 15
                encoder: {preset: ultrafast}
                overlay: {text: "SCORE 0-0", size: 40}
            """)
        let snapshot = "\(serve.baseURL)/api/cameras/cam0/snapshot.jpg"
        let directory = try TemporaryDirectory()
        func read(_ crop: String) throws -> String {
            let image = directory.file("snapshot.jpg")
            let status = try Curl.download(snapshot, to: image)
            guard status == "200" else { return "snapshot answered \(status)" }
            return try TesseractOCR.lightText(inImage: image, crop: crop)
        }
        let before = try read("iw/2:ih/4:0:0")
        #expect(before.contains("SCORE 0-0"), "tesseract read: \(before)")
        let answer = try Curl.body(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"text":"SCORE 3-1","position":"top-right"}"#,
                                    "\(serve.baseURL)/api/cameras/cam0/overlay"])
        #expect(answer.contains(#""text":"SCORE 3-1""#) && answer.contains("top-right"), "\(answer)")
        let after = try read("iw/2:ih/4:iw/2:0")
        #expect(after.contains("SCORE 3-1") && !after.contains("0-0"), "tesseract read: \(after)")
        let current = try Curl.body(["\(serve.baseURL)/api/cameras/cam0/overlay"])
        #expect(current.contains("SCORE 3-1"), "\(current)")
        let refused = try Curl.status(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"text":"x","position":"middle"}"#,
                                       "\(serve.baseURL)/api/cameras/cam0/overlay"])
        #expect(refused == "400")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }
}
