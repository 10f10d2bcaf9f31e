import Config
@testable import Engine
import Output
import SRTOutput
import Testing

/// `in_use_retry` reaches an srt output's sender as it does an rtmp output's (``KeyInUseRetry``):
/// given, its window; left out, the 60 s default.
@Suite struct OutputFactoryInUseRetryTests {
    @Test(arguments: [(0.0, 0.0), (20, 20), (nil, KeyInUseRetry.Settings.defaultWindowSeconds)] as [(Double?, Double)])
    func srtTakesTheInUseRetryWindow(configured: Double?, window: Double) throws {
        var output = OutputConfig(id: "srt", settings: .srt(SRTSettings(host: "127.0.0.1", port: 9000)))
        output.connection.inUseRetrySeconds = configured
        let camera = OutputFactoryRenditionTests.camera(outputs: [output])
        let built = try #require(try OutputFactoryRenditionTests.factory.build(output, for: camera) as? SRTStreamOutput)
        #expect(built.configuration.keyInUseRetry.windowSeconds == window)
        #expect(built.configuration.keyInUseRetry.intervalSeconds == KeyInUseRetry.Settings.defaultIntervalSeconds)
    }
}
