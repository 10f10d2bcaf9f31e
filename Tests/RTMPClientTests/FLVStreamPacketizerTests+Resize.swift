import Codec
import MediaCore
import RTMP
import RTMPClient
import Testing

extension FLVStreamPacketizerTests {
    /// The parameter sets x264 writes for a `width` × `height` picture.
    static func parameterSets(width: Int, height: Int) throws -> ParameterSets {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: width, height: height, bitrateBitsPerSecond: 500_000, preset: "ultrafast"))
        let video = SyntheticVideo(width: width, height: height)
        var sets: ParameterSets?
        try encoder.encode(try #require(try video.frame(number: 0))) { sets = $0.parameterSets }
        try encoder.flush { sets = sets ?? $0.parameterSets }
        return try #require(sets)
    }

    /// A CPU-adaptation step changes the picture size mid-stream: the packetizer takes the new SPS's
    /// size, so onMetaData sent again announces it; the same size again changes nothing.
    @Test func aNewPictureSizeIsAnnouncedAgain() throws {
        let description = RTMPStreamDescription(codec: .h264, width: 640, height: 360, framesPerSecond: 30, videoBitrateBitsPerSecond: 500_000)
        var packetizer = try FLVStreamPacketizer(description: description, messageStreamID: 1)
        let sameSize = packetizer.adoptPictureSize(of: try Self.parameterSets(width: 640, height: 360))
        let halved = packetizer.adoptPictureSize(of: try Self.parameterSets(width: 320, height: 180))
        #expect(!sameSize && halved)
        let metadata = try FLVMetadata(packetizer.metadata(timestamp: 0))
        #expect(metadata.width == 320 && metadata.height == 180)
        let again = packetizer.adoptPictureSize(of: try Self.parameterSets(width: 320, height: 180))
        let noSPS = packetizer.adoptPictureSize(of: ParameterSets(codec: .h264))
        #expect(!again && !noSPS, "the same size again, or no SPS: nothing to announce")
    }
}
