import Config
import Foundation
import Testing
import TestSupport

/// `livepush stream --rendition …` with `NAME=` prefixed outputs prints a config that `serve`
/// runs the same: the renditions, and each output's rendition.
@Suite struct RenditionFlagsTests {
    @Test func renditionFlagsPrintAConfigThatParsesBack() throws {
        let printed = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--print-config", "--size", "1280x720", "--bitrate", "3M", "--preset", "ultrafast",
            "--rendition", "hd=1280x720", "--rendition", "sd=640x360@15:800k", "--record", "sd=/tmp/sd.mp4", "--record", "hd=/tmp/hd.mp4",
            "rtmp://127.0.0.1/live/a", "sd=srt://127.0.0.1:9000", "--rtp", "sd=rtp://127.0.0.1:5004",
        ], timeoutSeconds: 30).output
        let camera = try #require(try ConfigParser(file: "printed").parse(printed).cameras.first)
        #expect(camera.renditions.map(\.name) == ["hd", "sd"])
        #expect(camera.renditions.map(\.size.width) == [1280, 640] && camera.renditions.map(\.framesPerSecond) == [30, 15])
        #expect(camera.renditions.map(\.encoder.bitrateBitsPerSecond) == [3_000_000, 800_000], "hd inherits --bitrate")
        #expect(camera.renditions.allSatisfy { $0.encoder.preset == "ultrafast" })
        let byKind = Dictionary(camera.outputs.map { ($0.kind.rawValue, $0.rendition) }, uniquingKeysWith: { first, _ in first })
        #expect(byKind == ["record": "sd", "rtmp": nil, "srt": "sd", "rtp": "sd"], "\(printed)")
        // Every --record is a recording of its own (one per rendition here), not the last one given.
        #expect(camera.outputs.filter { $0.kind.rawValue == "record" }.map(\.rendition) == ["sd", "hd"], "\(printed)")
        #expect(camera.outputs.map { camera.renditionIndex(of: $0) }.sorted() == [0, 0, 1, 1, 1])
    }

    @Test func badRenditionFlagsAreNamed() throws {
        let shape = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--rendition", "sd", "--record", "/tmp/never.mp4"], check: false)
        #expect(shape.status != 0 && shape.errorOutput.contains("--rendition 'sd': write NAME=WxH"), "\(shape.errorOutput)")
        let big = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--size", "640x360", "--rendition", "hd=1280x720", "--record", "/tmp/never.mp4"], check: false)
        #expect(big.status != 0 && big.errorOutput.contains("cameras[0].renditions[0].size: 1280x720 is larger than the camera's capture size 640x360"), "\(big.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.mp4"))
    }
}
