import Codec
import RTMP
import RTMPClient
import Testing

extension FLVStreamPacketizerTests {
    /// A multitrack connection's onMetaData: track 0 in the usual fields, every other track under its id
    /// in `videoTrackIdInfoMap` (enhanced RTMP v2), read back as written.
    @Test func multitrackMetadataDescribesEveryTrack() throws {
        let sizes = [(1280, 720, 2_500_000), (640, 360, 800_000), (320, 180, 250_000)]
        let packetizers = try sizes.enumerated().map { index, size in
            try FLVStreamPacketizer(description: RTMPStreamDescription(codec: index == 2 ? .hevc : .h264, width: size.0, height: size.1,
                                                                       framesPerSecond: 30, videoBitrateBitsPerSecond: size.2),
                                    messageStreamID: 1, trackID: UInt8(index))
        }
        let metadata = try FLVMetadata(packetizers[0].metadata(timestamp: 0, otherTracks: Array(packetizers.dropFirst())))
        #expect(metadata.width == 1280 && metadata.height == 720 && metadata.videoDataRate == 2500)
        #expect(metadata.videoCodecID == FLVMetadata.videoCodecID(.avc1))
        #expect(metadata.videoTracks == [
            1: .init(width: 640, height: 360, frameRate: 30, videoDataRate: 800, videoCodecID: FLVMetadata.videoCodecID(.avc1)),
            2: .init(width: 320, height: 180, frameRate: 30, videoDataRate: 250, videoCodecID: FLVMetadata.videoCodecID(.hvc1)),
        ])
        #expect(metadata.properties["videoTrackIdInfoMap"]?.objectValue?.properties.map(\.key) == ["1", "2"])
        #expect(try FLVMetadata(packetizers[0].metadata(timestamp: 0)).videoTracks.isEmpty, "one stream: no map")
    }
}
