import Capture
import Config
@testable import Engine
import MediaCore
import RTMPClient
import SRTOutput
import Testing

/// Each output is built for the rendition it takes (`rendition: sd`), not for the camera's
/// `encoder:` block: RTMP's onMetaData and its acknowledgement window, and the SRT and WHEP
/// adaptive targets, all follow that rendition's size, frame rate and bitrate.
@Suite struct OutputFactoryRenditionTests {
    /// A camera whose `encoder:` (3M) is neither rendition: `hd` at 2M and `sd` at 800k, 640x360, 15 fps.
    static func camera(outputs: [OutputConfig]) -> CameraConfig {
        var camera = CameraConfig(id: "cam0", size: VideoSize(width: 1280, height: 720), framesPerSecond: 30,
                                  encoder: EncoderConfig(bitrateBitsPerSecond: 3_000_000), outputs: outputs)
        var hd = EncoderConfig(bitrateBitsPerSecond: 2_000_000)
        hd.preset = "ultrafast"
        var sd = hd
        sd.bitrateBitsPerSecond = 800_000
        camera.renditions = [RenditionConfig(name: "hd", size: VideoSize(width: 1280, height: 720), framesPerSecond: 30, encoder: hd),
                             RenditionConfig(name: "sd", size: VideoSize(width: 640, height: 360), framesPerSecond: 15, encoder: sd)]
        return camera
    }

    static let factory = OutputFactory(whep: WHEPRegistry(udpHost: "127.0.0.1"))

    static func rtmp(rendition: String?) -> OutputConfig {
        OutputConfig(id: "rtmp", settings: .rtmp(url: "rtmp://127.0.0.1/live/key", streamKey: nil, preset: nil), adaptiveBitrate: true,
                     rendition: rendition)
    }

    @Test(arguments: [("sd", 640, 360, 15.0, 800_000), (nil, 1280, 720, 30.0, 2_000_000)] as [(String?, Int, Int, Double, Int)])
    func rtmpAnnouncesAndAcknowledgesItsRendition(rendition: String?, width: Int, height: Int, fps: Double, bitrate: Int) throws {
        let output = Self.rtmp(rendition: rendition)
        let built = try #require(try Self.factory.build(output, for: Self.camera(outputs: [output])) as? RTMPOutput)
        let stream = built.configuration.stream
        #expect(stream.width == width && stream.height == height && stream.framesPerSecond == fps, "onMetaData: \(stream)")
        #expect(stream.videoBitrateBitsPerSecond == bitrate, "onMetaData videodatarate: \(stream)")
        // The window livepush asks the server for is an eighth of a second at the bitrate it announces.
        #expect(RTMPOutput.acknowledgementWindow(bitsPerSecond: stream.videoBitrateBitsPerSecond) == UInt32(bitrate / 64))
        #expect(built.configuration.adaptiveBitrate?.targetBitsPerSecond == bitrate)
    }

    @Test func srtAdaptsToItsRendition() throws {
        let output = OutputConfig(id: "srt", settings: .srt(SRTSettings(host: "127.0.0.1", port: 9000)), adaptiveBitrate: true, rendition: "sd")
        let built = try #require(try Self.factory.build(output, for: Self.camera(outputs: [output])) as? SRTStreamOutput)
        #expect(built.configuration.adaptiveBitrate?.targetBitsPerSecond == 800_000)
    }

    @Test func whepAdaptsFromItsRendition() {
        let output = OutputConfig(id: "whep", settings: .whep(maxViewers: 8), adaptiveBitrate: true, rendition: "sd")
        let bitrate = OutputFactory.whepAdaptiveBitrate(output, for: Self.camera(outputs: [output]))
        #expect(bitrate?.configured == 800_000 && bitrate?.minimum == 300_000, "\(String(describing: bitrate))")
    }
}
