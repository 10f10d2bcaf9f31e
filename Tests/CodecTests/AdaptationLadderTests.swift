import Testing
@testable import Codec

@Suite struct AdaptationLadderTests {
    static func rungs(_ width: Int, _ height: Int, _ fps: Int, min: (Int, Int) = (640, 360), minFps: Int = 15) -> [String] {
        let settings = CPUAdaptationSettings(minimumWidth: min.0, minimumHeight: min.1, minimumFramesPerSecond: minFps)
        return AdaptationLadder(width: width, height: height, framesPerSecond: fps, settings: settings).rungs.map(\.description)
    }

    @Test func sizeStepsComeFirstThenFrameRate() {
        #expect(Self.rungs(1920, 1080, 60) == ["1920x1080@60", "1280x720@60", "960x540@60", "640x360@60", "640x360@30", "640x360@20", "640x360@15"])
    }

    @Test func neverBelowTheMinimumSizeOrRate() {
        #expect(Self.rungs(1920, 1080, 60, min: (1280, 720), minFps: 30) == ["1920x1080@60", "1280x720@60", "1280x720@30"])
        // A minimum width stops the size steps even where the height would still fit.
        #expect(Self.rungs(1920, 1080, 30, min: (1000, 100), minFps: 30) == ["1920x1080@30", "1280x720@30"])
    }

    @Test func keepsTheAspectWithEvenDimensions() {
        #expect(Self.rungs(640, 480, 30, min: (320, 240)) == ["640x480@30", "480x360@30", "360x270@30", "360x270@20", "360x270@15"])
        #expect(Self.rungs(1366, 768, 30, min: (16, 16), minFps: 30) == ["1366x768@30", "1280x720@30", "960x540@30", "640x360@30", "480x270@30", "320x180@30"])
        for rung in AdaptationLadder(width: 1366, height: 768, framesPerSecond: 30, settings: CPUAdaptationSettings(minimumWidth: 16, minimumHeight: 16)).rungs {
            #expect(rung.width % 2 == 0 && rung.height % 2 == 0)
        }
    }

    @Test func frameRateStepsSaveAtLeastAFifth() {
        // 25 → 20 saves exactly a fifth; 60 → 50 would not, so 60 goes to 30.
        #expect(Self.rungs(640, 360, 25) == ["640x360@25", "640x360@20", "640x360@15"])
        #expect(Self.rungs(640, 360, 60, minFps: 30) == ["640x360@60", "640x360@30"])
    }

    @Test func aMinimumAtTheConfiguredPointLeavesOneRung() {
        #expect(Self.rungs(640, 360, 15) == ["640x360@15"])
    }
}
