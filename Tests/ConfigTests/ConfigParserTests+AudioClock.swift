import Config
import Testing

extension ConfigParserTests {
    /// `audio.clock_correction` keeps the audio on the video's clock unless turned off.
    @Test func audioClockCorrectionIsOnUnlessTurnedOff() throws {
        #expect(try parser.parse("audio:\n  device: tone\ncameras:\n  - id: a\n").audio?.clockCorrection == true)
        let off = try parser.parse("audio:\n  device: tone\n  clock_correction: off\ncameras:\n  - id: a\n")
        #expect(off.audio?.clockCorrection == false)
        #expect(throws: ConfigError.self) { try parser.parse("audio:\n  clock_correction: sometimes\ncameras:\n  - id: a\n") }
    }
}
