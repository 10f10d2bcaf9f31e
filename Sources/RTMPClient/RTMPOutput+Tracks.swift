import Codec
import Output
import RTMP

/// Multitrack enhanced RTMP (v2): which track a frame goes as, what `connect` announces, and whether the
/// server takes the tracks or gets the top one alone.
extension RTMPOutput {
    static let noMultitrackReason = "server did not announce multitrack (capsEx); sending the top rendition only"

    /// The track `frame` goes as: 0 on a single stream; on a multitrack output the index of the track
    /// carrying its rendition, nil for a rendition no track carries. Any thread.
    func trackIndex(of frame: EncodedVideoFrame) -> Int? {
        configuration.tracks.isEmpty ? 0 : configuration.tracks.firstIndex { $0.rendition == frame.rendition }
    }

    /// Keyframe requests for the encoders this output takes: every track's, on one captured frame, so a
    /// keyframe asked for (a reconnect, after drops) keeps the tracks' keyframes on the same times; the
    /// context's own on a single stream.
    static func keyFrameRequest(tracks: [RTMPTrack], context: OutputStartContext) -> @Sendable () -> Void {
        guard !tracks.isEmpty, let renditions = context.renditions else { return context.requestKeyFrame }
        let indices = tracks.map(\.rendition)
        return { renditions.requestAlignedKeyFrames(indices) }
    }

    /// What `connect` says for this output: the FourCCs of every track's codec (`avc1` too for H.264
    /// as multitrack tags) and the multitrack capability when it has tracks.
    func publishConfiguration(url: RTMPURL) -> RTMPPublishStateMachine.Configuration {
        let multitrack = !configuration.tracks.isEmpty
        let codecs = multitrack ? configuration.tracks.map(\.stream.codec) : [configuration.stream.codec]
        var fourCCs: [FourCC] = []
        for fourCC in codecs.flatMap({ FLVStreamPacketizer.fourCCList(for: $0, multitrack: multitrack) }) where !fourCCs.contains(fourCC) {
            fourCCs.append(fourCC)
        }
        var publish = RTMPPublishStateMachine.Configuration(url: url, fourCCList: fourCCs, capabilities: .reconnect)
        if multitrack { publish.connect = publish.connect.announcingMultitrack() }
        return publish
    }

    /// The packetizers for a connection that publishes on `messageStreamID`: one per track when the
    /// server announced multitrack (or the test-only policy says always), else one for the stream
    /// (track 0 alone, logged and in the status). Queues only the tracks it will send.
    func makePacketizers(for session: RTMPSessionHandler, messageStreamID: UInt32) throws(RTMPClientError) -> [FLVStreamPacketizer] {
        let tracks = configuration.tracks
        let multitrack = !tracks.isEmpty && (configuration.multitrack == .always || session.serverCapabilities.supportsMultitrack)
        shared.withLock { $0.tracksQueued = multitrack ? tracks.count : 1 }
        guard multitrack else {
            if !tracks.isEmpty { logger.warning("\(Self.noMultitrackReason)", metadata: ["url": "\(url.redacted)"]) }
            return [try FLVStreamPacketizer(description: stream, messageStreamID: messageStreamID)]
        }
        logger.info("sending \(tracks.count) renditions as tracks of one connection (multitrack)",
                    metadata: ["tracks": "\(tracks.map { "\($0.stream.width)x\($0.stream.height)" }.joined(separator: ", "))"])
        var packetizers: [FLVStreamPacketizer] = []
        for (index, track) in tracks.enumerated() {
            // Track 0's description holds the audio and any picture size adopted mid-stream.
            packetizers.append(try FLVStreamPacketizer(description: index == 0 ? stream : track.stream, messageStreamID: messageStreamID,
                                                       trackID: UInt8(index)))
        }
        return packetizers
    }

    /// onMetaData for this connection: track 0's (or the one stream's), the other tracks in
    /// `videoTrackIdInfoMap`, at the latest time sent. Only while publishing.
    func metadata() -> RTMPMessage {
        packetizers[0].metadata(timestamp: clock.currentMillis, otherTracks: Array(packetizers.dropFirst()))
    }

    /// Why the stream is as it is on this connection: the top rendition alone for a server without
    /// multitrack, top tracks paused on a narrow link; nil otherwise.
    var tracksReason: String? {
        if !configuration.tracks.isEmpty && packetizers.count == 1 { return Self.noMultitrackReason }
        return Self.pausedReason(paused: reportedPausedTracks, tracks: configuration.tracks)
    }
}
