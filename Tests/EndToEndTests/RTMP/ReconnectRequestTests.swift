import Foundation
import Testing
import TestSupport

/// Enhanced RTMP v2's `NetConnection.Connect.ReconnectRequest` sent mid-stream to the real `livepush`:
/// it makes before it breaks (the new connection publishes while the old one is still open), switches
/// at a keyframe that the new connection gets after its sequence headers, sends no frame on both, and
/// closes the old connection. Judged by the stream timestamps the servers received, not by the clock.
/// The gap is printed (BENCHMARKS.md, "ReconnectRequest gap").
@Suite(.serialized) struct ReconnectRequestTests {
    /// The request goes out once the first connection has this many coded frames (1.5 s of a 4 s stream).
    static let requestAfterFrames = 45
    static let seconds = 4
    /// One GOP of the stream (`--keyint 2`) in stream milliseconds: the gap must stay under it.
    static let gopMilliseconds = UInt32(LivepushStreamTests.keyint * 1000)

    static func publish(to server: PublishRecordingRTMPServer) throws -> String {
        let process = try LivepushStreamTests.stream(["rtmp://127.0.0.1:\(server.port)/live/secret-key"], seconds: seconds)
        return try LivepushStreamTests.finish(process, within: Double(seconds + 60))
    }

    /// Checks the hand-over from `old` to `new` and returns the gap between the last frame on the old
    /// connection and the first on the new one, in stream milliseconds.
    static func expectHandOver(from old: PublishRecordingRTMPServer.Connection, to new: PublishRecordingRTMPServer.Connection,
                               log: String) throws -> UInt32 {
        let asked = try #require(old.reconnectRequestedOrder, "the server asked to reconnect")
        let newPublished = try #require(new.publishedOrder, "the new connection published: \(log.suffix(1500))")
        let oldClosed = try #require(old.closedOrder, "the old connection was closed")
        #expect(asked < newPublished && newPublished < oldClosed, "make before break: the new connection published before the old one closed")
        let lastOld = try #require(old.codedFrames.last)
        #expect(lastOld.order > newPublished, "the old connection still carried media once the new one was publishing")
        let firstIndex = try #require(new.videoTags.firstIndex { !$0.isSequenceHeader }, "frames on the new connection: \(log.suffix(1500))")
        #expect(new.videoTags[firstIndex].isKeyFrame, "the first frame on the new connection is a keyframe")
        #expect(firstIndex > 0 && new.videoTags[..<firstIndex].allSatisfy(\.isSequenceHeader), "sequence headers come first on the new connection")
        #expect(new.videoTags[firstIndex].order > lastOld.order, "from the switch on, frames go only to the new connection")
        let oldTimes = Set(old.codedFrames.map(\.timestamp)), newTimes = Set(new.codedFrames.map(\.timestamp))
        #expect(oldTimes.isDisjoint(with: newTimes), "no frame on both connections: \(oldTimes.intersection(newTimes).sorted())")
        let firstNew = new.videoTags[firstIndex].timestamp
        #expect(firstNew > lastOld.timestamp, "stream time goes on across the switch: \(lastOld.timestamp) → \(firstNew) ms")
        let gap = firstNew &- lastOld.timestamp
        #expect(gap < gopMilliseconds, "the gap the server sees is under one GOP: \(gap) ms")
        let afterRequest = old.codedFrames.filter { $0.order > asked }.count
        print("ReconnectRequest gap: \(gap) ms between the last frame on the old connection (\(lastOld.timestamp) ms) and the first "
              + "on the new one (\(firstNew) ms); \(afterRequest) frames went to the old connection after the request")
        return gap
    }

    /// Streams into a server that asks to move to `target`; checks the hand-over to the one new
    /// connection on `newPort`.
    static func expectMove(to target: PublishRecordingRTMPServer.ReconnectRequest.Target, newPort: (PublishRecordingRTMPServer) -> Int) async throws {
        let server = try PublishRecordingRTMPServer(reconnectRequest: .init(afterFrames: requestAfterFrames, target: target))
        defer { server.close() }
        let log = try publish(to: server)
        _ = await eventually { server.connections.allSatisfy { $0.closedOrder != nil } }
        let connections = server.connections
        try #require(connections.count == 2, "one new connection: \(connections.count), \(log.suffix(1500))")
        #expect(connections[1].localPort == newPort(server), "the new connection went to the port asked for")
        _ = try expectHandOver(from: connections[0], to: connections[1], log: log)
        #expect(log.contains("reconnect request honoured"), "\(log.suffix(1500))")
    }

    @Test func aReconnectRequestWithoutTcUrlMovesToANewConnectionToTheSameServer() async throws {
        try await Self.expectMove(to: .sameAddress, newPort: \.port)
    }

    @Test func aReconnectRequestWithATcUrlMovesToTheNewAddress() async throws {
        try await Self.expectMove(to: .secondPort(host: "127.0.0.1"), newPort: \.secondPort)
    }

    @Test func aReconnectRequestToAnotherHostIsRefusedAndTheStreamCarriesOn() async throws {
        // "localhost" is another host than the configured 127.0.0.1 (follow_redirects defaults to same_host).
        let server = try PublishRecordingRTMPServer(reconnectRequest: .init(afterFrames: Self.requestAfterFrames, target: .secondPort(host: "localhost")))
        defer { server.close() }
        let log = try Self.publish(to: server)
        try #require(server.connections.count == 1, "the stream key went to another host: \(server.connections.count) connections, \(log.suffix(1500))")
        let frames = server.connections[0].codedFrames
        let asked = try #require(server.connections[0].reconnectRequestedOrder)
        let framesAfter = frames.filter { $0.order > asked }
        // A second of stream time after the request on the same connection: it carried on.
        #expect((framesAfter.last?.timestamp ?? 0) > (framesAfter.first?.timestamp ?? .max) &+ 1000, "\(framesAfter.count) frames after the request")
        #expect(log.contains("reconnect request refused") && log.contains("follow_redirects: any"), "\(log.suffix(1500))")
    }
}
