import Foundation
import MediaCore

/// Draws the "no signal" card that stands in for an unplugged camera: a dark slate, a band with
/// NO SIGNAL in block letters, and the current time as seven-segment digits, so viewers (and the
/// person at the dashboard) can see the stream is alive and when the camera went away.
///
/// Everything is drawn with libyuv rectangle fills (``I420Buffer/fillRect(x:y:width:height:color:)``):
/// no per-pixel loops.
enum NoSignalCard {
    static let background = YUVColor(y: 40, u: 128, v: 128)
    static let band = YUVColor(y: 81, u: 90, v: 240)  // red
    static let ink = YUVColor.white

    /// 5×7 glyphs for the letters the card needs, one string per row.
    static let glyphs: [Character: [String]] = [
        "N": ["#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"],
        "O": [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
        "I": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "#####"],
        "G": [".####", "#....", "#....", "#.###", "#...#", "#...#", ".###."],
        "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
        " ": [".....", ".....", ".....", ".....", ".....", ".....", "....."],
    ]

    /// Segments a–g lit for each digit (a top, b upper right, c lower right, d bottom, e lower left, f upper left, g middle).
    static let segments: [Character: String] = [
        "0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc",
        "5": "afgcd", "6": "afgedc", "7": "abc", "8": "abcdefg", "9": "abcdfg",
    ]

    static func draw(into buffer: I420Buffer, wallClockSeconds: Int) {
        let width = buffer.width, height = buffer.height
        buffer.fillRect(x: 0, y: 0, width: width, height: height, color: background)
        let bandHeight = height / 4
        let bandY = height / 2 - bandHeight
        buffer.fillRect(x: 0, y: bandY, width: width, height: bandHeight, color: band)
        drawText("NO SIGNAL", centeredIn: (0, bandY, width, bandHeight), into: buffer)
        drawClock(seconds: wallClockSeconds, top: height / 2 + height / 12, into: buffer)
    }

    private static func drawText(_ text: String, centeredIn box: (x: Int, y: Int, width: Int, height: Int), into buffer: I420Buffer) {
        let cell = max(2, min(box.height / 10, box.width / (text.count * 6 + 1)) / 2 * 2)
        let textWidth = text.count * 6 * cell - cell
        var x = box.x + (box.width - textWidth) / 2
        let y = box.y + (box.height - 7 * cell) / 2
        for character in text {
            for (row, bits) in (glyphs[character] ?? []).enumerated() {
                for (column, bit) in bits.enumerated() where bit == "#" {
                    buffer.fillRect(x: x + column * cell, y: y + row * cell, width: cell, height: cell, color: ink)
                }
            }
            x += 6 * cell
        }
    }

    /// HH:MM:SS (UTC offset of the machine's local time zone) as seven-segment digits.
    private static func drawClock(seconds: Int, top: Int, into buffer: I420Buffer) {
        let local = seconds + TimeZone.current.secondsFromGMT()
        let daySeconds = ((local % 86_400) + 86_400) % 86_400
        let text = String(format: "%02d:%02d:%02d", daySeconds / 3600, daySeconds / 60 % 60, daySeconds % 60)
        let digitHeight = max(8, buffer.height / 6) / 2 * 2
        let digitWidth = digitHeight / 2 / 2 * 2
        let stroke = max(2, digitHeight / 10 / 2 * 2)
        let advance = digitWidth + stroke * 3
        var x = (buffer.width - advance * text.count) / 2
        for character in text {
            if character == ":" {
                buffer.fillRect(x: x + digitWidth / 2, y: top + digitHeight / 3, width: stroke, height: stroke, color: ink)
                buffer.fillRect(x: x + digitWidth / 2, y: top + digitHeight * 2 / 3, width: stroke, height: stroke, color: ink)
            } else {
                drawDigit(segments[character] ?? "", x: x, y: top, width: digitWidth, height: digitHeight, stroke: stroke, into: buffer)
            }
            x += advance
        }
    }

    private static func drawDigit(_ lit: String, x: Int, y: Int, width: Int, height: Int, stroke: Int, into buffer: I420Buffer) {
        let half = height / 2
        let rects: [Character: (Int, Int, Int, Int)] = [
            "a": (x, y, width, stroke), "g": (x, y + half - stroke / 2, width, stroke), "d": (x, y + height - stroke, width, stroke),
            "f": (x, y, stroke, half), "b": (x + width - stroke, y, stroke, half),
            "e": (x, y + half, stroke, half), "c": (x + width - stroke, y + half, stroke, half),
        ]
        for segment in lit {
            guard let (rx, ry, rw, rh) = rects[segment] else { continue }
            buffer.fillRect(x: rx, y: ry, width: rw, height: rh, color: ink)
        }
    }
}
