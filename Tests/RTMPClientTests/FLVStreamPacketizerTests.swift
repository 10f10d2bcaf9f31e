import Codec
import NIOCore
import RTMP
import RTMPClient
import Testing

/// How an AV1 stream becomes enhanced-RTMP messages: `av01` announced, the av1C as SequenceStart, each
/// temporal unit as CodedFrames without a composition time, the OBUs as the encoder wrote them.
@Suite struct FLVStreamPacketizerTests {
    /// SVT-AV1's 640x360 8-bit 4:2:0 sequence header OBU, and the av1C FFmpeg's MP4 muxer writes for it.
    static let sequenceHeader: [UInt8] = [0x0A, 0x0B, 0x00, 0x00, 0x00, 0x0C, 0xC4, 0xFF, 0x67, 0x00, 0xBE, 0x00, 0x10]
    static let av1C: [UInt8] = [0x81, 0x01, 0x0C, 0x00] + sequenceHeader
    static let av01: [UInt8] = Array("av01".utf8)

    @Test func av1GoesAsAv01() throws {
        // Temporal delimiter, sequence header, then a frame OBU (type 6, 3 bytes).
        let unit: [UInt8] = [0x12, 0x00] + Self.sequenceHeader + [0x32, 0x03, 0xAA, 0xBB, 0xCC]
        let frame = EncodedVideoFrame(codec: .av1, data: unit, nalUnitRanges: [0..<unit.count], ptsNanos: 0, dtsNanos: 0,
                                      isKeyFrame: true, parameterSets: try ParameterSets(av1TemporalUnit: unit))
        let description = RTMPStreamDescription(codec: .av1, width: 640, height: 360, framesPerSecond: 30, videoBitrateBitsPerSecond: 1_000_000)
        var packetizer = try FLVStreamPacketizer(description: description, messageStreamID: 1)
        #expect(FLVStreamPacketizer.fourCCList(for: .av1) == [.av01])
        #expect(try FLVMetadata(packetizer.metadata(timestamp: 0)).videoCodecID == FLVMetadata.videoCodecID(.av01))

        // 1 | key frame | SequenceStart = 0x90, 'av01', av1C
        let start = try packetizer.sequenceHeader(for: frame, timestamp: 0)
        #expect(Array(start.payload.readableBytesView) == [0x90] + Self.av01 + Self.av1C)
        // 1 | key frame | CodedFrames = 0x91, 'av01', no composition time, the temporal unit unchanged
        let coded = packetizer.codedFrame(frame, timestamp: 33, compositionOffset: 0)
        #expect(Array(coded.payload.readableBytesView) == [0x91] + Self.av01 + unit)

        var payload = coded.payload
        let tag = try FLVVideoTag(from: &payload)
        #expect(tag == FLVVideoTag(frameType: .key, codec: .fourCC(.av01), packet: .codedFrames(compositionTimeOffset: 0, data: ByteBuffer(bytes: unit))))
    }

    /// An AV1 key frame whose temporal unit has no sequence header (none seen yet) cannot start the stream.
    @Test func av1WithoutASequenceHeaderIsRefused() throws {
        let unit: [UInt8] = [0x12, 0x00, 0x32, 0x01, 0xAA]
        let frame = EncodedVideoFrame(codec: .av1, data: unit, nalUnitRanges: [0..<unit.count], ptsNanos: 0, dtsNanos: 0,
                                      isKeyFrame: true, parameterSets: try ParameterSets(av1TemporalUnit: unit))
        let description = RTMPStreamDescription(codec: .av1, width: 640, height: 360, framesPerSecond: 30, videoBitrateBitsPerSecond: 1_000_000)
        let packetizer = try FLVStreamPacketizer(description: description, messageStreamID: 1)
        #expect(throws: RTMPClientError.self) { try packetizer.sequenceHeader(for: frame, timestamp: 0) }
    }

    /// A rendition sent as a track of a multitrack connection: every video tag is a Multitrack (OneTrack)
    /// tag carrying the track id, right after the FourCC (enhanced RTMP v2, ExVideoTagBody).
    @Test func av1TrackGoesAsMultitrackOneTrack() throws {
        let unit: [UInt8] = [0x12, 0x00] + Self.sequenceHeader + [0x32, 0x03, 0xAA, 0xBB, 0xCC]
        let frame = EncodedVideoFrame(codec: .av1, data: unit, nalUnitRanges: [0..<unit.count], ptsNanos: 0, dtsNanos: 0,
                                      isKeyFrame: true, parameterSets: try ParameterSets(av1TemporalUnit: unit))
        let description = RTMPStreamDescription(codec: .av1, width: 320, height: 180, framesPerSecond: 30, videoBitrateBitsPerSecond: 300_000)
        var packetizer = try FLVStreamPacketizer(description: description, messageStreamID: 1, trackID: 2)
        // 1 | key | Multitrack = 0x96, OneTrack | SequenceStart = 0x00, 'av01', track 2, av1C
        let start = try packetizer.sequenceHeader(for: frame, timestamp: 0)
        #expect(Array(start.payload.readableBytesView) == [0x96, 0x00] + Self.av01 + [0x02] + Self.av1C)
        // 0x96, OneTrack | CodedFrames = 0x01, 'av01', track 2, the temporal unit unchanged
        let coded = packetizer.codedFrame(frame, timestamp: 33, compositionOffset: 0)
        #expect(Array(coded.payload.readableBytesView) == [0x96, 0x01] + Self.av01 + [0x02] + unit)
        var payload = coded.payload
        #expect(try FLVVideoTag(from: &payload).trackID == 2)
    }

    /// H.264 cannot carry a track id in a legacy tag: as a track it goes as the `avc1` FourCC, announced in `connect`.
    @Test func h264TrackGoesAsAvc1() throws {
        #expect(FLVStreamPacketizer.fourCCList(for: .h264) == [])
        #expect(FLVStreamPacketizer.fourCCList(for: .h264, multitrack: true) == [.avc1])
        let frame = TestFrames.frame(TestFrames.referenceSlice, millis: 0)
        let description = RTMPStreamDescription(codec: .h264, width: 160, height: 90, framesPerSecond: 30, videoBitrateBitsPerSecond: 100_000)
        var packetizer = try FLVStreamPacketizer(description: description, messageStreamID: 1, trackID: 1)
        var payload = packetizer.codedFrame(frame, timestamp: 0, compositionOffset: 0).payload
        let tag = try FLVVideoTag(from: &payload)
        #expect(tag.codec == .fourCC(.avc1))
        #expect(tag.trackID == 1)
        #expect(tag.frameType == .inter)
    }
}
