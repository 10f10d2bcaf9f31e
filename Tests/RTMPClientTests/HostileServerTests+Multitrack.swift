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
