import NIOCore
import Testing

@testable import RTMP

@Suite("FLV tag bodies")
struct FLVTagTests {
    struct VideoVector: Sendable, CustomTestStringConvertible {
        var name: String
        var tag: FLVVideoTag
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    static let avcC: [UInt8] = [0x01, 0x64, 0x00, 0x1F, 0xFF, 0xE1, 0x00, 0x00, 0x01, 0x00, 0x00]
    static let nalus: [UInt8] = [0x00, 0x00, 0x00, 0x02, 0x65, 0x88]  // one 2-byte IDR NAL unit

    static let videoVectors: [VideoVector] = [
        // frame type 1 (key) | codec 7 (AVC) = 0x17 | AVCPacketType 0 | CTS 0
        VideoVector(
            name: "AVC sequence header", tag: FLVVideoTag(frameType: .key, codec: .avc, packet: .sequenceStart(ByteBuffer(avcC))),
            bytes: [0x17, 0x00, 0x00, 0x00, 0x00] + avcC),
        // 0x17 | NALU | CTS +66 ms
        VideoVector(
            name: "AVC keyframe, CTS 66",
            tag: FLVVideoTag(frameType: .key, codec: .avc, packet: .codedFrames(compositionTimeOffset: 66, data: ByteBuffer(nalus))),
            bytes: [0x17, 0x01, 0x00, 0x00, 0x42] + nalus),
        // frame type 2 (inter) | codec 7 = 0x27 | NALU | CTS −33 = 0xFFFFDF (SI24)
        VideoVector(
            name: "AVC inter frame, negative CTS",
            tag: FLVVideoTag(frameType: .inter, codec: .avc, packet: .codedFrames(compositionTimeOffset: -33, data: ByteBuffer(nalus))),
            bytes: [0x27, 0x01, 0xFF, 0xFF, 0xDF] + nalus),
        // 0x17 | end of sequence | CTS 0
        VideoVector(name: "AVC end of sequence", tag: FLVVideoTag(frameType: .key, codec: .avc, packet: .sequenceEnd), bytes: [0x17, 0x02, 0, 0, 0]),
        // ex header 1 | key (001) | SequenceStart (0000) = 0x90 | 'hvc1'
        VideoVector(
            name: "HEVC sequence start",
            tag: FLVVideoTag(frameType: .key, codec: .fourCC(.hvc1), packet: .sequenceStart(ByteBuffer([0x01, 0x02]))),
            bytes: [0x90, 0x68, 0x76, 0x63, 0x31, 0x01, 0x02]),
        // 1 | key | CodedFrames (0001) = 0x91 | 'hvc1' | CTS 40
        VideoVector(
            name: "HEVC coded frames with CTS",
            tag: FLVVideoTag(frameType: .key, codec: .fourCC(.hvc1), packet: .codedFrames(compositionTimeOffset: 40, data: ByteBuffer(nalus))),
            bytes: [0x91, 0x68, 0x76, 0x63, 0x31, 0x00, 0x00, 0x28] + nalus),
        // 1 | inter (010) | CodedFramesX (0011) = 0xA3 | 'hvc1': CTS 0 is implied
        VideoVector(
            name: "HEVC CodedFramesX",
            tag: FLVVideoTag(frameType: .inter, codec: .fourCC(.hvc1), packet: .codedFrames(compositionTimeOffset: 0, data: ByteBuffer(nalus))),
            bytes: [0xA3, 0x68, 0x76, 0x63, 0x31] + nalus),
        // 1 | key | CodedFrames = 0x91 | 'av01': no CTS field for AV1
        VideoVector(
            name: "AV1 coded frames",
            tag: FLVVideoTag(frameType: .key, codec: .fourCC(.av01), packet: .codedFrames(compositionTimeOffset: 0, data: ByteBuffer([0x12, 0x00]))),
            bytes: [0x91, 0x61, 0x76, 0x30, 0x31, 0x12, 0x00]),
        // 1 | key | SequenceEnd (0010) = 0x92 | 'av01'
        VideoVector(
            name: "AV1 sequence end", tag: FLVVideoTag(frameType: .key, codec: .fourCC(.av01), packet: .sequenceEnd),
            bytes: [0x92, 0x61, 0x76, 0x30, 0x31]),
        // 1 | key | Metadata (0100) = 0x94 | 'av01' | AMF payload kept raw
        VideoVector(
            name: "enhanced metadata kept raw",
            tag: FLVVideoTag(frameType: .key, codec: .fourCC(.av01), packet: .unknown(packetType: 4, data: ByteBuffer([0x05]))),
            bytes: [0x94, 0x61, 0x76, 0x30, 0x31, 0x05]),
        // 1 | key | Multitrack (0110) = 0x96 | OneTrack (0000) | SequenceStart (0000) | 'hvc1' | trackId 2
        VideoVector(
            name: "multitrack HEVC sequence start, track 2",
            tag: FLVVideoTag(frameType: .key, codec: .fourCC(.hvc1), packet: .sequenceStart(ByteBuffer([0x01, 0x02])), trackID: 2),
            bytes: [0x96, 0x00, 0x68, 0x76, 0x63, 0x31, 0x02, 0x01, 0x02]),
        // 0x96 | OneTrack | CodedFrames (0001) | 'avc1' | trackId 1 | CTS 40 after the track id
        VideoVector(
            name: "multitrack AVC coded frames with CTS, track 1",
            tag: FLVVideoTag(
                frameType: .key, codec: .fourCC(.avc1), packet: .codedFrames(compositionTimeOffset: 40, data: ByteBuffer(nalus)), trackID: 1),
            bytes: [0x96, 0x01, 0x61, 0x76, 0x63, 0x31, 0x01, 0x00, 0x00, 0x28] + nalus),
        // 1 | inter (010) | Multitrack = 0xA6 | OneTrack | CodedFramesX (0011) | 'avc1' | trackId 0
        VideoVector(
            name: "multitrack AVC CodedFramesX, track 0",
            tag: FLVVideoTag(
                frameType: .inter, codec: .fourCC(.avc1), packet: .codedFrames(compositionTimeOffset: 0, data: ByteBuffer(nalus)), trackID: 0),
            bytes: [0xA6, 0x03, 0x61, 0x76, 0x63, 0x31, 0x00] + nalus),
        // 0x96 | OneTrack | CodedFrames | 'av01' | trackId 2: no CTS for AV1
        VideoVector(
            name: "multitrack AV1 coded frames, track 2",
            tag: FLVVideoTag(
                frameType: .key, codec: .fourCC(.av01), packet: .codedFrames(compositionTimeOffset: 0, data: ByteBuffer([0x12, 0x00])), trackID: 2),
            bytes: [0x96, 0x01, 0x61, 0x76, 0x30, 0x31, 0x02, 0x12, 0x00]),
        // 0x96 | OneTrack | Metadata (0100) | 'hvc1' | trackId 1 | AMF payload kept raw
        VideoVector(
            name: "multitrack metadata, track 1",
            tag: FLVVideoTag(frameType: .key, codec: .fourCC(.hvc1), packet: .unknown(packetType: 4, data: ByteBuffer([0x05])), trackID: 1),
            bytes: [0x96, 0x04, 0x68, 0x76, 0x63, 0x31, 0x01, 0x05]),
        // key | codec 2 (Sorenson H.263) = 0x12 | raw body
        VideoVector(
            name: "legacy codec kept raw", tag: FLVVideoTag(frameType: .key, codec: .legacy(codecID: 2), packet: .raw(ByteBuffer([0xAB]))),
            bytes: [0x12, 0xAB]),
        // command frame (5) | AVC = 0x57 | one command byte
        VideoVector(name: "AVC command frame", tag: FLVVideoTag(frameType: .command, codec: .avc, packet: .raw(ByteBuffer([0x01]))), bytes: [0x57, 0x01]),
    ]

    @Test(arguments: videoVectors)
    func videoEncodes(_ vector: VideoVector) {
        var buffer = ByteBuffer()
        vector.tag.write(to: &buffer)
        #expect(buffer.bytes == vector.bytes)
        #expect(vector.tag.encodedSize == vector.bytes.count)
    }

    @Test(arguments: videoVectors)
    func videoDecodes(_ vector: VideoVector) throws {
        var buffer = ByteBuffer(vector.bytes)
        #expect(try FLVVideoTag(from: &buffer) == vector.tag)
    }

    @Test(arguments: videoVectors)
    func videoTruncatedHeaders(_ vector: VideoVector) {
        // every cut inside the header fields is truncation; cuts in the data just shorten the data
        let headerLength = vector.bytes.count - Self.dataLength(vector.tag)
        for length in 0..<headerLength {
            var buffer = ByteBuffer(Array(vector.bytes.prefix(length)))
            guard case .truncated = rtmpError({ _ = try FLVVideoTag(from: &buffer) }) else {
                Issue.record("\(vector.name) cut to \(length) bytes decoded")
                continue
            }
            #expect(buffer.readableBytes == length)
        }
    }

    static func dataLength(_ tag: FLVVideoTag) -> Int {
        switch tag.packet {
        case .sequenceStart(let data), .codedFrames(_, let data), .unknown(_, let data), .raw(let data): return data.readableBytes
        case .sequenceEnd: return 0
        }
    }

    @Test func codedFramesWithCTSZeroOnHEVCDecodesFromEitherPacketType() throws {
        // 0x91 CodedFrames with an explicit CTS of 0 decodes the same as CodedFramesX
        var explicit = ByteBuffer([0x91, 0x68, 0x76, 0x63, 0x31, 0x00, 0x00, 0x00, 0xEE])
        #expect(try FLVVideoTag(from: &explicit).packet == .codedFrames(compositionTimeOffset: 0, data: ByteBuffer([0xEE])))
    }

    @Test(arguments: [
        ([UInt8(0x07), 0x00, 0, 0, 0], RTMPError.invalidFLVTag(reason: "video frame type 0")),
        ([0x67, 0x00, 0, 0, 0], .invalidFLVTag(reason: "video frame type 6")),
        ([0x17, 0x03, 0, 0, 0], .invalidFLVTag(reason: "AVCPacketType 3")),
        ([0x97, 0x61, 0x76, 0x30, 0x31], .unsupportedFLVTag(reason: "enhanced video packet type 7 (multitrack/ModEx)")),
        // Multitrack | ManyTracks (1) | CodedFrames: a size per track, not modelled
        ([0x96, 0x11, 0x61, 0x76, 0x30, 0x31, 0x00], .unsupportedFLVTag(reason: "video multitrack type 1 (only OneTrack is modelled)")),
        // Multitrack | OneTrack | nested Multitrack: the spec forbids it
        ([0x96, 0x06, 0x61, 0x76, 0x30, 0x31, 0x00], .unsupportedFLVTag(reason: "enhanced video packet type 6 (multitrack/ModEx)")),
        ([0xD1, 0x61, 0x76, 0x30, 0x31], .unsupportedFLVTag(reason: "enhanced video command frame")),
    ])
    func videoRejects(bytes: [UInt8], expected: RTMPError) {
        var buffer = ByteBuffer(bytes)
        #expect(rtmpError { _ = try FLVVideoTag(from: &buffer) } == expected)
    }

    @Test func nalUnitHelpers() throws {
        let units = [ByteBuffer([0x67, 0x64]), ByteBuffer([0x65])]
        guard case .codedFrames(_, let data) = FLVVideoPacket.codedFrames(compositionTimeOffset: 0, nalUnits: units) else {
            Issue.record("expected coded frames")
            return
        }
        // 4-byte big-endian length before each unit
        #expect(data.bytes == [0, 0, 0, 2, 0x67, 0x64, 0, 0, 0, 1, 0x65])
        #expect(try FLVVideoPacket.nalUnits(in: data) == units)
        // a length running past the end is truncation
        #expect(rtmpError { _ = try FLVVideoPacket.nalUnits(in: ByteBuffer([0, 0, 0, 5, 0x65])) } == .truncated(what: "NAL unit", needed: 5, available: 1))
    }

    // MARK: Audio

    static let audioVectors: [(FLVAudioTag, [UInt8])] = [
        // AAC (10) | 44 kHz (3) | 16-bit | stereo = 0xAF | AACPacketType 0 | AudioSpecificConfig (LC, 48 kHz, 2 ch)
        (.aac(.aacSequenceHeader(ByteBuffer([0x11, 0x90]))), [0xAF, 0x00, 0x11, 0x90]),
        // 0xAF | AACPacketType 1 | raw frame
        (.aac(.aacRaw(ByteBuffer([0x21, 0x00]))), [0xAF, 0x01, 0x21, 0x00]),
        // mono: 0xAE
        (.aac(.aacRaw(ByteBuffer([0x21])), isStereo: false), [0xAE, 0x01, 0x21]),
        // MP3 (2) | 44 kHz | 16-bit | stereo = 0x2F | raw
        (FLVAudioTag(soundRate: 3, is16Bit: true, isStereo: true, packet: .other(soundFormat: 2, data: ByteBuffer([0xFF]))), [0x2F, 0xFF]),
    ]

    @Test(arguments: audioVectors)
    func audioRoundTrip(tag: FLVAudioTag, bytes: [UInt8]) throws {
        var buffer = ByteBuffer()
        tag.write(to: &buffer)
        #expect(buffer.bytes == bytes)
        #expect(tag.encodedSize == bytes.count)
        #expect(try FLVAudioTag(from: &buffer) == tag)
    }

    @Test func audioRejects() {
        var empty = ByteBuffer()
        #expect(rtmpError { _ = try FLVAudioTag(from: &empty) } == .truncated(what: "audio tag header", needed: 1, available: 0))
        var noPacketType = ByteBuffer([0xAF])
        #expect(rtmpError { _ = try FLVAudioTag(from: &noPacketType) } == .truncated(what: "AACPacketType", needed: 1, available: 0))
        var badPacketType = ByteBuffer([0xAF, 0x02])
        #expect(rtmpError { _ = try FLVAudioTag(from: &badPacketType) } == .invalidFLVTag(reason: "AACPacketType 2"))
    }

    // MARK: Metadata

    @Test func metadataBytes() throws {
        let metadata = FLVMetadata(
            width: 1280, height: 720, frameRate: 30, videoDataRate: 2500, videoCodecID: FLVMetadata.avcVideoCodecID,
            audioDataRate: 128, audioSampleRate: 48000, audioSampleSize: 16, isStereo: true,
            audioCodecID: FLVMetadata.aacAudioCodecID, encoder: "livepush")
        let expected: [UInt8] =
            amfString("@setDataFrame") + amfString("onMetaData")
            + [0x08, 0, 0, 0, 11]  // ECMA array, 11 properties
            + amfKey("width") + amfNumber(1280) + amfKey("height") + amfNumber(720)
            + amfKey("framerate") + amfNumber(30) + amfKey("videodatarate") + amfNumber(2500)
            + amfKey("videocodecid") + amfNumber(7) + amfKey("audiodatarate") + amfNumber(128)
            + amfKey("audiosamplerate") + amfNumber(48000) + amfKey("audiosamplesize") + amfNumber(16)
            + amfKey("stereo") + [0x01, 0x01] + amfKey("audiocodecid") + amfNumber(10)
            + amfKey("encoder") + amfString("livepush")
            + [0x00, 0x00, 0x09]
        let message = RTMPMessage(metadata, chunkStreamID: RTMPChunkStreamID.stream, messageStreamID: 1)
        #expect(message.type == .dataAMF0)
        #expect(message.payload.bytes == expected)
        #expect(try FLVMetadata(message) == metadata)
    }

    @Test func metadataWithoutSetDataFrameAndWithObject() throws {
        // as a server forwards it: "onMetaData", object { width: 640 }
        var buffer = ByteBuffer(amfString("onMetaData") + [0x03] + amfKey("width") + amfNumber(640) + [0x00, 0x00, 0x09])
        #expect(try FLVMetadata(from: &buffer) == FLVMetadata(width: 640))
    }

    @Test func hevcMetadataUsesTheFourCC() {
        #expect(FLVMetadata.videoCodecID(.hvc1) == 1_752_589_105)  // 'hvc1' = 0x68766331
    }

    @Test func metadataRejects() {
        var other = ByteBuffer(amfString("@setDataFrame") + amfString("onCuePoint") + [0x05])
        #expect(rtmpError { _ = try FLVMetadata(from: &other) } == .invalidMessage(type: 18, reason: "data message is not onMetaData"))
        var noObject = ByteBuffer(amfString("onMetaData") + [0x05])
        #expect(rtmpError { _ = try FLVMetadata(from: &noObject) } == .invalidMessage(type: 18, reason: "onMetaData without an object"))
    }

    @Test func fourCCStrings() {
        #expect(FourCC("hvc1") == .hvc1)
        #expect(FourCC.av01.description == "av01")
        #expect(FourCC("toolong") == nil)
        #expect(FourCC("é12") == nil)
    }
}
