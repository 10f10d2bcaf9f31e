import Foundation
import Testing
import TestSupport

/// The overlay as a viewer sees it, read back with tesseract: burned into the encoded stream with a
/// running clock (`stream --overlay`, a recording decoded by ffmpeg), and changed live through the
/// API (`serve`, the snapshot after the change).
@Suite(.serialized) struct OverlayReadBackTests {
    /// The HH:MM:SS.mmm the OCR found, as seconds of the day; tesseract reads the small point as a
    /// comma now and then, which changes no digit.
    static func clockSeconds(in text: String) -> Double? {
        guard let match = text.firstMatch(of: /(\d\d):(\d\d):(\d\d)[.,](\d\d\d)/) else { return nil }
        return Double(Int(match.1)! * 3600 + Int(match.2)! * 60 + Int(match.3)!) + Double(Int(match.4)!) / 1000
    }

    @Test func theClockIsInTheStreamAndAdvances() throws {
        let directory = try TemporaryDirectory()
        let recording = directory.file("clock.mp4")
        let run = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--size", "640x360", "--fps", "15", "--preset", "ultrafast", "--bitrate", "1M",
                                                                    "--overlay", "LIVE %H:%M:%S.%L {camera}", "--overlay-position", "bottom-left",
                                                                    "--record", recording, "--duration", "4s"], timeoutSeconds: 60)
        #expect(run.status == 0, "\(run.errorOutput.suffix(1000))")
        // Tesseract misreads a glyph now and then (0 as O, . as ,), depending on what the moving pattern
        // puts around the text: each reading may take up to three frames, 0.2 s apart, and the first
        // that reads whole counts. No frame with the text and a clock fails the test.
        var clocks: [(streamTime: Double, clock: Double)] = []
        for second in [1.0, 3.0] {
            var readings: [String] = []
            var found = false
            for streamTime in [second, second + 0.2, second + 0.4] {
                let image = directory.file("at\(streamTime).png")
                _ = try ExternalTool.run("ffmpeg", ["-v", "error", "-y", "-ss", "\(streamTime)", "-i", recording, "-frames:v", "1", image], timeoutSeconds: 30)
                let text = try TesseractOCR.lightText(inImage: image, crop: "iw*3/4:ih/4:0:ih*3/4")
                readings.append(text)
                if text.contains("LIVE"), text.replacingOccurrences(of: "O", with: "0").contains("cam0"), let clock = Self.clockSeconds(in: text) {
                    clocks.append((streamTime, clock))
                    found = true
                    break
                }
            }
            if !found { Issue.record("no frame from \(second) s on read \"LIVE HH:MM:SS.mmm cam0\"; tesseract read: \(readings)") }
        }
        if clocks.count == 2 {
            let streamStep = clocks[1].streamTime - clocks[0].streamTime
            let clockStep = clocks[1].clock - clocks[0].clock
            #expect(abs(clockStep - streamStep) < 0.5, "\(streamStep) s of stream apart, the clock moved \(clockStep) s: \(clocks)")
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
        /// The first of up to three snapshots, 0.3 s apart, in which tesseract finds `expected`
        /// (it misreads a glyph now and then, depending on what the moving pattern puts behind the
        /// box), or the last reading.
        func read(_ crop: String, expecting expected: String) throws -> String {
            var text = ""
            for attempt in 0..<3 {
                if attempt > 0 { Thread.sleep(forTimeInterval: 0.3) }
                let image = directory.file("snapshot.jpg")
                let status = try Curl.download(snapshot, to: image)
                guard status == "200" else { return "snapshot answered \(status)" }
                text = try TesseractOCR.lightText(inImage: image, crop: crop)
                if TesseractOCR.reads(text, as: expected) { break }
            }
            return text
        }
        // Below the frame-code row along the top edge, down to below the text's box.
        let before = try read("iw/2:ih/5:0:ih/20", expecting: "SCORE 0-0")
        #expect(TesseractOCR.reads(before, as: "SCORE 0-0"), "tesseract read: \(before)")
        let answer = try Curl.body(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"text":"SCORE 3-1","position":"top-right"}"#,
                                    "\(serve.baseURL)/api/cameras/cam0/overlay"])
        #expect(answer.contains(#""text":"SCORE 3-1""#) && answer.contains("top-right"), "\(answer)")
        let after = try read("iw/2:ih/5:iw/2:ih/20", expecting: "SCORE 3-1")
        #expect(TesseractOCR.reads(after, as: "SCORE 3-1") && !TesseractOCR.reads(after, as: "0-0"), "tesseract read: \(after)")
        let current = try Curl.body(["\(serve.baseURL)/api/cameras/cam0/overlay"])
        #expect(current.contains("SCORE 3-1"), "\(current)")
        let refused = try Curl.status(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"text":"x","position":"middle"}"#,
                                       "\(serve.baseURL)/api/cameras/cam0/overlay"])
        #expect(refused == "400")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }
}
