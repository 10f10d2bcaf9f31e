import MediaCore
import Testing

@Suite struct DurationParserTests {
    @Test(arguments: [("10m", 600.0), ("30s", 30), ("1h", 3600), ("45", 45), ("1.5h", 5400), ("0.5s", 0.5), ("8760h", 31_536_000)])
    func parsesWhatUsersWrite(text: String, seconds: Double) throws {
        #expect(try DurationParser.seconds(parsing: text) == seconds)
    }

    @Test(arguments: ["ten", "-5m", "0", "", "m", "5 m", "inf", "nan", "1e12s", "8761h"])
    func refusesTheRest(text: String) {
        #expect(throws: DurationParser.Failure(text: text)) { try DurationParser.seconds(parsing: text) }
    }
}
