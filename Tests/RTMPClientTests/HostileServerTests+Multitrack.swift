import Codec
import NIOCore
import Output
import RTMP
import RTMPClient
import Testing
import TestSupport

extension HostileServerTests {
    /// An output with two tracks (renditions 0 and 2 of its camera), fed `framesEach` keyframes of each of
    /// renditions 0, 1 and 2 at the same times: what the server received once `videoMessages` came.
    static func publishTracks(to server: HostileRTMPServer, framesEach: Int = 30, videoMessages: Int) async throws -> (output: RTMPOutput, videoTags: [FLVVideoTag], connect: RTMPCommand?) {
        var configuration = try Self.output(port: server.port).configuration
        let stream = configuration.stream
        configuration.tracks = [RTMPTrack(rendition: 0, stream: stream), RTMPTrack(rendition: 2, stream: stream)]
        let output = RTMPOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        #expect(output.servesAllRenditions)
        #expect(await eventually(within: 10) { output.status.state == .running })
        for frame in 0..<framesEach {
            for rendition in 0..<3 {
                var key = Self.keyFrame(millis: Int64(frame) * 33, payload: 200)
                key.rendition = rendition
                output.onEncodedFrame(key)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        _ = await eventually(within: 10) { server.record.messages.filter { $0.type == .video }.count >= videoMessages }
        await output.stop()
        let tags = server.record.messages.filter { $0.type == .video }.compactMap { message -> FLVVideoTag? in
            var payload = message.payload
            return try? FLVVideoTag(from: &payload)
        }
        let connect = server.record.messages.compactMap { try? RTMPCommand($0) }.first { $0.name == "connect" }
        return (output, tags, connect)
    }

    /// A server whose `connect` result announces multitrack gets each named rendition as its track (a
    /// sequence start per track before its frames), and none of the rendition no track names.
    @Test func aServerThatAnnouncesMultitrackGetsEveryTrack() async throws {
        let server = try HostileRTMPServer(.publishes(.announcesMultitrack))
        defer { server.close() }
        let (output, tags, connect) = try await Self.publishTracks(to: server, videoMessages: 62)
        let capsEx = connect?.commandObject.objectValue?["capsEx"]?.numberValue.flatMap(UInt32.init(exactly:))
        #expect(capsEx.map { $0 & RTMPConnectParameters.ExtendedCapabilities.multitrack.rawValue != 0 } == true, "connect announces multitrack: \(String(describing: connect))")
        #expect(Set(tags.map(\.trackID)) == [0, 1], "\(tags.map(\.trackID))")
        for track: UInt8 in [0, 1] {
            let packets = tags.filter { $0.trackID == track }.map(\.packet)
            guard case .sequenceStart = packets.first else {
                Issue.record("track \(track) starts with \(String(describing: packets.first))")
                continue
            }
            #expect(packets.dropFirst().count == 30, "track \(track): every frame, once: \(packets.count - 1)")
        }
        #expect(output.status.stateReason == nil, "\(String(describing: output.status.stateReason))")
        let metadata = server.record.messages.filter { $0.type == .dataAMF0 }.compactMap { try? FLVMetadata($0) }.first
        #expect(metadata?.width == 640 && metadata?.videoTracks[1]?.width == 640, "onMetaData describes track 1 too: \(String(describing: metadata))")
    }

    /// A server that announces nothing (as nginx-rtmp) gets the top track alone as an ordinary stream,
    /// and the status says why.
    @Test func aServerWithoutMultitrackGetsTheTopTrackAlone() async throws {
        let server = try HostileRTMPServer(.publishes(.streamIDWithoutNull))
        defer { server.close() }
        let (output, tags, _) = try await Self.publishTracks(to: server, videoMessages: 31)
        #expect(!tags.isEmpty && tags.allSatisfy { $0.trackID == nil && $0.codec == .avc }, "legacy AVC tags only: \(tags.prefix(3))")
        #expect(tags.count == 31, "a sequence header and the top rendition's 30 frames: \(tags.count)")
        #expect(output.status.stateReason == "server did not announce multitrack (capsEx); sending the top rendition only",
                "\(String(describing: output.status.stateReason))")
    }
}

/// The narrow-link policy of a multitrack connection, without I/O.
@Suite struct RTMPTrackPauseTests {
    /// GOP drops pause the top track first, one at a time (one episode of congestion pauses one track),
    /// never the last; a queue that stays short brings them back, the lowest paused first.
    @Test func theTopTrackGoesFirstAndComesBackLast() {
        var pause = RTMPTrackPause(tracks: 3, resumeAfterNanos: 10_000_000_000, holdNanos: 3_000_000_000)
        let second: Int64 = 1_000_000_000
        let limit = 2 * second
        #expect(pause.carries(track: 0) && pause.carries(track: 1))
        var changed = pause.gopsDropped(nowNanos: 100 * second)
        #expect(changed && !pause.carries(track: 0) && pause.carries(track: 1) && pause.carries(track: 2))
        changed = pause.gopsDropped(nowNanos: 101 * second)
        #expect(!changed && pause.paused == 1, "more drops of the same episode pause nothing more")
        changed = pause.gopsDropped(nowNanos: 103 * second)
        #expect(changed && !pause.carries(track: 1) && pause.carries(track: 2))
        changed = pause.gopsDropped(nowNanos: 200 * second)
        #expect(!changed && pause.paused == 2, "the last track is never paused")

        // A long queue, or one short for less than 10 s, brings nothing back; then the lowest paused comes back.
        var resumed = [pause.check(queuedNanos: limit, limitNanos: limit, nowNanos: 201 * second),
                       pause.check(queuedNanos: limit / 4, limitNanos: limit, nowNanos: 202 * second),
                       pause.check(queuedNanos: limit / 4, limitNanos: limit, nowNanos: 211 * second),
                       pause.check(queuedNanos: limit / 4, limitNanos: limit, nowNanos: 212 * second)]
        #expect(resumed == [nil, nil, nil, 1])
        #expect(pause.carries(track: 1) && !pause.carries(track: 0))
        // The wait starts again for the next one.
        resumed = [pause.check(queuedNanos: 0, limitNanos: limit, nowNanos: 213 * second),
                   pause.check(queuedNanos: 0, limitNanos: limit, nowNanos: 222 * second),
                   pause.check(queuedNanos: 0, limitNanos: limit, nowNanos: 223 * second)]
        #expect(resumed == [nil, nil, 0] && pause.paused == 0)
    }

    @Test func aSingleStreamIsNeverPaused() {
        var pause = RTMPTrackPause(tracks: 1)
        let changed = pause.gopsDropped(nowNanos: 0)
        #expect(!changed && pause.carries(track: 0))
    }
}

extension HostileServerTests {
    /// A link that stops taking the stream (a frozen path) while two tracks go out: the send queue drops
    /// by GOP, the top track is paused first and the status says so; the lower track goes on being queued.
    @Test func aNarrowLinkPausesTheTopTrackFirst() async throws {
        let server = try HostileRTMPServer(.publishes(.announcesMultitrack))
        defer { server.close() }
        let proxy = try StallingProxy(to: server.port, receiveBufferBytes: 16_384)
        defer { proxy.close() }
        var configuration = try Self.output(port: proxy.port).configuration
        configuration.stallSeconds = 60
        configuration.queueMilliseconds = 500
        configuration.tracks = [RTMPTrack(rendition: 0, stream: configuration.stream), RTMPTrack(rendition: 1, stream: configuration.stream)]
        let output = RTMPOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        #expect(await eventually(within: 10) { output.status.state == .running })
        let feeder = Self.feedKeyFrames(to: output, renditions: 2, payload: 30_000)
        defer { feeder.cancel() }
        try await Task.sleep(for: .milliseconds(500))
        proxy.stall()
        let paused = await eventually(within: 20) { output.status.stateReason?.contains("dropping the top track 0") == true }
        let status = output.status
        feeder.cancel()
        await output.stop()
        #expect(paused, "state reason: \(status.stateReason ?? "none"), drops: \(String(describing: status.delivery?.framesDropped))")
        #expect(status.stateReason?.contains("track 1") != true, "the lower track is never paused: \(status.stateReason ?? "none")")
    }
}
