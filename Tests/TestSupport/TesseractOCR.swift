import Foundation
import Harness

/// Reads text back from a picture with tesseract (Debian's tesseract-ocr), the way a viewer would
/// read an overlay: the test renders or decodes a frame to an image, then asks what it says.
public enum TesseractOCR {
    /// The light text (an overlay's default white ink) tesseract finds in `image` (PNG, PPM, …), one
    /// block (`--psm 6`): the picture is upscaled and turned into black ink (luma above 200) on
    /// white first, so coloured backgrounds and compression noise do not read as letters.
    /// `crop` (ffmpeg's crop filter arguments, e.g. `iw/2:ih/4:0:0` for the top-left quarter) reads
    /// only where the text should be, so other bright shapes in the picture do not get in the way.
    public static func lightText(inImage image: String, crop: String? = nil) throws -> String {
        try ExternalTool.require("tesseract")
        try ExternalTool.require("ffmpeg")
        let scaled = image + ".x2.png"
        _ = try ExternalTool.run("ffmpeg", ["-v", "error", "-y", "-i", image, "-vf", (crop.map { "crop=\($0)," } ?? "") + "format=gray,scale=iw*2:ih*2:flags=lanczos,lut=y='if(gt(val,200),0,255)'", scaled], timeoutSeconds: 30)
        return try ExternalTool.run("tesseract", [scaled, "stdout", "--psm", "6"], timeoutSeconds: 60,
                                    environment: ["OMP_THREAD_LIMIT": "1"]).output
    }

    /// Whether `text` (what tesseract read) says `expected`, ignoring case, spaces and stray marks:
    /// tesseract sometimes splits a word or reads a capital as lower case ("sco RE0-0" for
    /// "SCORE 0-0") while every glyph is there.
    public static func reads(_ text: String, as expected: String) -> Bool {
        func squeezed(_ string: String) -> String {
            String(string.uppercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == ":" || $0 == "." }.map(Character.init))
        }
        return squeezed(text).contains(squeezed(expected))
    }

    /// Writes a raw I420 picture (packed planes) as a PNG with ffmpeg.
    public static func writePNG(i420 bytes: [UInt8], width: Int, height: Int, to path: String) throws {
        let raw = path + ".yuv"
        try Data(bytes).write(to: URL(fileURLWithPath: raw))
        _ = try ExternalTool.run("ffmpeg", ["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-i", raw,
                                            "-frames:v", "1", path], timeoutSeconds: 30)
    }
}
