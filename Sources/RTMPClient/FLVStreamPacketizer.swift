import Codec
import NIOCore
import RTMP

/// Turns encoded frames into RTMP media messages on one message stream: `@setDataFrame onMetaData`,
/// the sequence header (legacy AVC, or an enhanced-RTMP `hvc1` SequenceStart), then coded frames whose
/// NAL units are length-prefixed straight into one reused payload buffer (no per-frame allocation once grown).
///
/// The clock lives outside (`RTMPMediaClock`), so a reconnect gets a fresh packetizer but keeps its timestamps.
public struct FLVStreamPacketizer: Sendable {
    public let description: RTMPStreamDescription
    public let messageStreamID: UInt32
    private let codec: FLVVideoCodec
    private var payload = ByteBuffer()
    private var audioPayload = ByteBuffer()
    /// The header every raw AAC frame's tag starts with.
    private let aacRawTag: FLVAudioTag

    public init(description: RTMPStreamDescription, messageStreamID: UInt32) throws(RTMPClientError) {
        self.description = description
        self.messageStreamID = messageStreamID
        aacRawTag = .aac(.aacRaw(ByteBuffer()), isStereo: (description.audio?.channels ?? 2) > 1)
        switch description.codec {
        case .h264: codec = .avc
        case .hevc: codec = .fourCC(.hvc1)
        case .av1:
            throw .unsupportedStream(reason: "AV1 over RTMP needs an av1C sequence header, which livepush does not build yet; use libx264 or libx265")
        }
    }

    /// The FourCCs to announce in `connect` (enhanced RTMP) so servers accept `hvc1`.
    public static func fourCCList(for codec: VideoCodec) -> [FourCC] {
        codec == .hevc ? [.hvc1] : []
    }

    public func metadata(timestamp: UInt32) -> RTMPMessage {
        let audio = description.audio
        let metadata = FLVMetadata(
            width: Double(description.width), height: Double(description.height),
            frameRate: description.framesPerSecond,
            videoDataRate: Double(description.videoBitrateBitsPerSecond) / 1000,
            videoCodecID: description.codec == .h264 ? FLVMetadata.avcVideoCodecID : FLVMetadata.videoCodecID(.hvc1),
            audioDataRate: audio.map { Double($0.bitrateBitsPerSecond) / 1000 },
            audioSampleRate: audio.map { Double($0.sampleRate) },
            audioSampleSize: audio.map { _ in 16 },
            isStereo: audio.map { $0.channels > 1 },
            audioCodecID: audio.map { _ in FLVMetadata.aacAudioCodecID },
            encoder: "livepush")
        return RTMPMessage(metadata, chunkStreamID: RTMPChunkStreamID.stream, messageStreamID: messageStreamID, timestamp: timestamp)
    }

    /// The decoder configuration record from the frame's parameter sets.
    public func sequenceHeader(for frame: EncodedVideoFrame, timestamp: UInt32) throws(RTMPClientError) -> RTMPMessage {
        let record: [UInt8]?
        do {
            record = try frame.parameterSets.decoderConfigurationRecord()
        } catch {
            throw .unsupportedStream(reason: "the encoder's parameter sets are unusable: \(error)")
        }
        guard let record else { throw .unsupportedStream(reason: "no parameter sets before the first keyframe") }
        let tag = FLVVideoTag(frameType: .key, codec: codec, packet: .sequenceStart(ByteBuffer(bytes: record)))
        return RTMPMessage(video: tag, messageStreamID: messageStreamID, timestamp: timestamp)
    }

    /// A coded-frames message for `frame`, its payload written into the reused buffer.
    public mutating func codedFrame(_ frame: EncodedVideoFrame, timestamp: UInt32, compositionOffset: Int32) -> RTMPMessage {
        let header = FLVVideoTag(
            frameType: frame.isKeyFrame ? .key : .inter, codec: codec,
            packet: .codedFrames(compositionTimeOffset: compositionOffset, data: ByteBuffer()))
        payload.clear()
        payload.reserveCapacity(header.encodedSize + frame.lengthPrefixedSize)
        header.write(to: &payload)
        frame.data.withUnsafeBufferPointer { bytes in
            for range in frame.nalUnitRanges {
                payload.writeInteger(UInt32(truncatingIfNeeded: range.count))
                payload.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
            }
        }
        return RTMPMessage(
            chunkStreamID: RTMPChunkStreamID.video, messageStreamID: messageStreamID, timestamp: timestamp,
            type: .video, payload: payload)
    }

    /// A raw AAC frame's message, its tag written into a reused buffer like video's.
    public mutating func aacFrame(_ data: [UInt8], timestamp: UInt32) -> RTMPMessage {
        audioPayload.clear()
        audioPayload.reserveCapacity(aacRawTag.encodedSize + data.count)
        aacRawTag.writeHeader(to: &audioPayload)
        audioPayload.writeBytes(data)
        return RTMPMessage(
            chunkStreamID: RTMPChunkStreamID.audio, messageStreamID: messageStreamID, timestamp: timestamp,
            type: .audio, payload: audioPayload)
    }

    public func audio(_ packet: FLVAudioPacket, timestamp: UInt32) -> RTMPMessage {
        let tag = FLVAudioTag.aac(packet, isStereo: (description.audio?.channels ?? 2) > 1)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(tag.encodedSize)
        tag.write(to: &buffer)
        return RTMPMessage(
            chunkStreamID: RTMPChunkStreamID.audio, messageStreamID: messageStreamID, timestamp: timestamp,
            type: .audio, payload: buffer)
    }
}

extension RTMPMessage {
    init(video tag: FLVVideoTag, messageStreamID: UInt32, timestamp: UInt32) {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(tag.encodedSize)
        tag.write(to: &buffer)
        self.init(chunkStreamID: RTMPChunkStreamID.video, messageStreamID: messageStreamID, timestamp: timestamp, type: .video, payload: buffer)
    }
}
