import Codec
import MediaCore
import RTMPClient
import Testing

/// onMetaData announces the size the stream really has: RTMP carries no rotation, so the encode
/// turns the pixels and a quarter turn makes a 1280x720 capture a 720x1280 stream.
@Suite struct RTMPStreamDescriptionTests {
    @Test(arguments: [(VideoRotation.none, 1280, 720), (.clockwise90, 720, 1280), (.clockwise180, 1280, 720), (.clockwise270, 720, 1280)])
    func announcedSizeFollowsTheRotation(rotation: VideoRotation, width: Int, height: Int) {
        let description = RTMPStreamDescription(encoder: VideoEncoderSettings(width: 1280, height: 720, framesPerSecond: 25, bitrateBitsPerSecond: 1_000_000),
                                                rotation: rotation)
        #expect(description.width == width && description.height == height)
        #expect(description.framesPerSecond == 25 && description.videoBitrateBitsPerSecond == 1_000_000 && description.codec == .h264)
    }
}
