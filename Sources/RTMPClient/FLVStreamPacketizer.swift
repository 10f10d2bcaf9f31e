import Codec
import NIOCore
import RTMP

/// Turns encoded frames into RTMP media messages on one message stream: `@setDataFrame onMetaData`,
/// the sequence header (legacy AVC, or an enhanced-RTMP `hvc1`/`av01` SequenceStart), then coded frames
/// written straight into one reused payload buffer (no per-frame allocation once grown): H.264/H.265 NAL
/// units length-prefixed, an AV1 temporal unit's OBUs as the encoder wrote them (low-overhead format).
///
/// The clock lives outside (`RTMPMediaClock`), so a reconnect gets a fresh packetizer but keeps its timestamps.
///
/// With a `trackID` every video tag is an enhanced-RTMP v2 multitrack (OneTrack) tag for that track, one
/// packetizer per rendition on the same message stream; H.264 then goes as the `avc1` FourCC, since a
/// legacy AVC tag has no place for a track id.
public struct FLVStreamPacketizer: Sendable {
    public private(set) var description: RTMPStreamDescription
    public let messageStreamID: UInt32
    /// The multitrack track id (0 = the top rendition), or nil for a single-track stream.
    public let trackID: UInt8?
    private let codec: FLVVideoCodec
    private var payload = ByteBuffer()
    private var audioPayload = ByteBuffer()
    /// The header every raw AAC frame's tag starts with.
    private let aacRawTag: FLVAudioTag

    public init(description: RTMPStreamDescription, messageStreamID: UInt32, trackID: UInt8? = nil) throws(RTMPClientError) {
        self.description = description
        self.messageStreamID = messageStreamID
        self.trackID = trackID
        aacRawTag = .aac(.aacRaw(ByteBuffer()), isStereo: (description.audio?.channels ?? 2) > 1)
        switch description.codec {
        case .h264: codec = trackID == nil ? .avc : .fourCC(.avc1)
        case .hevc: codec = .fourCC(.hvc1)
        case .av1: codec = .fourCC(.av01)
        }
    }

    /// The FourCCs to announce in `connect` (enhanced RTMP) so servers accept `hvc1` or `av01`, and
    /// `avc1` too when H.264 goes as multitrack tags.
    public static func fourCCList(for codec: VideoCodec, multitrack: Bool = false) -> [FourCC] {
        switch codec {
        case .h264: return multitrack ? [.avc1] : []
        case .hevc: return [.hvc1]
        case .av1: return [.av01]
        }
    }

    /// onMetaData for this stream, or on a multitrack connection for track 0 (this packetizer's) with
    /// `otherTracks` (tracks 1, 2, …) in `videoTrackIdInfoMap` (enhanced RTMP v2).
    public func metadata(timestamp: UInt32, otherTracks: [FLVStreamPacketizer] = []) -> RTMPMessage {
        let audio = description.audio
        var metadata = FLVMetadata(
            width: Double(description.width), height: Double(description.height),
            frameRate: description.framesPerSecond,
            videoDataRate: Double(description.videoBitrateBitsPerSecond) / 1000,
            videoCodecID: videoCodecID,
            audioDataRate: audio.map { Double($0.bitrateBitsPerSecond) / 1000 },
            audioSampleRate: audio.map { Double($0.sampleRate) },
            audioSampleSize: audio.map { _ in 16 },
            isStereo: audio.map { $0.channels > 1 },
            audioCodecID: audio.map { _ in FLVMetadata.aacAudioCodecID },
            encoder: "livepush")
        for track in otherTracks {
            guard let id = track.trackID else { continue }
            let other = track.description
            metadata.videoTracks[id] = .init(width: Double(other.width), height: Double(other.height), frameRate: other.framesPerSecond,
                                             videoDataRate: Double(other.videoBitrateBitsPerSecond) / 1000, videoCodecID: track.videoCodecID)
        }
        return RTMPMessage(metadata, chunkStreamID: RTMPChunkStreamID.stream, messageStreamID: messageStreamID, timestamp: timestamp)
    }

    /// Takes the picture size of a sequence header that changed it mid-stream (a CPU-adaptation
    /// step): true when it differs from what onMetaData announced, so the caller sends ``metadata(timestamp:)`` again.
    public mutating func adoptPictureSize(of parameterSets: ParameterSets) -> Bool {
        guard let size = parameterSets.pictureSize, size.width != description.width || size.height != description.height else { return false }
        description.width = size.width
        description.height = size.height
        return true
    }

    /// `videocodecid`: legacy AVC's 7, or the enhanced-RTMP FourCC's numeric value.
    private var videoCodecID: Double {
        if case .fourCC(let fourCC) = codec { return FLVMetadata.videoCodecID(fourCC) }
        return FLVMetadata.avcVideoCodecID
    }

    /// The decoder configuration record (avcC, hvcC or av1C) from the frame's parameter sets.
    public func sequenceHeader(for frame: EncodedVideoFrame, timestamp: UInt32) throws(RTMPClientError) -> RTMPMessage {
        let record: [UInt8]?
        do {
            record = try frame.parameterSets.decoderConfigurationRecord()
        } catch {
            throw .unsupportedStream(reason: "the encoder's parameter sets are unusable: \(error)")
        }
        guard let record else { throw .unsupportedStream(reason: "no parameter sets before the first keyframe") }
        let tag = FLVVideoTag(frameType: .key, codec: codec, packet: .sequenceStart(ByteBuffer(bytes: record)), trackID: trackID)
        return RTMPMessage(video: tag, messageStreamID: messageStreamID, timestamp: timestamp)
    }

    /// A coded-frames message for `frame`, its payload written into the reused buffer.
    public mutating func codedFrame(_ frame: EncodedVideoFrame, timestamp: UInt32, compositionOffset: Int32) -> RTMPMessage {
        let header = FLVVideoTag(
            frameType: frame.isKeyFrame ? .key : .inter, codec: codec,
            packet: .codedFrames(compositionTimeOffset: compositionOffset, data: ByteBuffer()), trackID: trackID)
        payload.clear()
        payload.reserveCapacity(header.encodedSize + frame.lengthPrefixedSize)
        header.write(to: &payload)
        guard frame.codec.usesNALUnits else {
            payload.writeBytes(frame.data)
            return videoMessage(timestamp: timestamp)
        }
        frame.data.withUnsafeBufferPointer { bytes in
            for range in frame.nalUnitRanges {
                payload.writeInteger(UInt32(truncatingIfNeeded: range.count))
                payload.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
            }
        }
        return videoMessage(timestamp: timestamp)
    }

    private func videoMessage(timestamp: UInt32) -> RTMPMessage {
        RTMPMessage(chunkStreamID: RTMPChunkStreamID.video, messageStreamID: messageStreamID, timestamp: timestamp,
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
