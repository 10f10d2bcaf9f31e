import MediaCore
import Testing

@Suite struct BitrateParserTests {
    @Test func bitratesAsStreamersWriteThem() throws {
        #expect(try BitrateParser.bitsPerSecond(parsing: "2500k") == 2_500_000)
        #expect(try BitrateParser.bitsPerSecond(parsing: "2.5M") == 2_500_000)
        #expect(try BitrateParser.bitsPerSecond(parsing: "800000") == 800_000)
        #expect(throws: BitrateParser.Failure(text: "fast")) { try BitrateParser.bitsPerSecond(parsing: "fast") }
        #expect(throws: BitrateParser.Failure(text: "0k")) { try BitrateParser.bitsPerSecond(parsing: "0k") }
    }
}
