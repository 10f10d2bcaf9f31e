import Output
import RTMP
import RTMPClient
import Testing

/// Where a ReconnectRequest sends the stream key, and which queued items go to the old connection and
/// which to the new one, without sockets.
@Suite struct RTMPReconnectRequestTests {
    private let configured = try! RTMPURL("rtmp://ingest.example.com/live/secret-key")

    private func decide(_ tcURL: String?, policy: RedirectPolicy = .sameHost, from configured: RTMPURL? = nil) -> RTMPReconnectRequest.Decision {
        let origin = configured ?? self.configured
        return RTMPReconnectRequest.decide(tcURL: tcURL, current: origin, configured: origin, policy: policy)
    }

    @Test func withoutATcUrlTheSameURLIsConnectedAgain() {
        #expect(decide(nil) == .follow(configured))
    }

    @Test func aTcUrlOnTheSameHostIsFollowedWithTheStreamKey() throws {
        #expect(decide("rtmp://ingest.example.com:1936/other") == .follow(try RTMPURL("rtmp://ingest.example.com:1936/other/secret-key")))
    }

    @Test func anotherHostIsRefusedUnlessAllowed() throws {
        guard case .refuse(let target, let reason) = decide("rtmp://elsewhere.example.net/live") else {
            Issue.record("the key went to another host under same_host")
            return
        }
        #expect(!target.contains("secret-key"), "the refusal's target is masked: \(target)")
        #expect(reason.contains("follow_redirects: any"), "\(reason)")
        #expect(decide("rtmp://elsewhere.example.net/live", policy: .any) == .follow(try RTMPURL("rtmp://elsewhere.example.net/live/secret-key")))
    }

    @Test func tlsIsNeverDropped() throws {
        let secure = try RTMPURL("rtmps://ingest.example.com/live/secret-key")
        guard case .refuse(_, let reason) = decide("rtmp://ingest.example.com/live", policy: .any, from: secure) else {
            Issue.record("rtmps → rtmp was followed")
            return
        }
        #expect(reason.contains("TLS"), "\(reason)")
    }

    @Test func anUnusableTcUrlIsRefused() {
        guard case .refuse(_, let reason) = decide("http://ingest.example.com/live") else {
            Issue.record("an http tcUrl was followed")
            return
        }
        #expect(reason.contains("unusable"), "\(reason)")
    }

    /// The queue holds video (true: keyframe) and audio (nil); the replacement is ready from item 2 on.
    /// The old connection takes everything before the first keyframe after that, the new one the rest.
    @Test func theNewConnectionTakesOverAtTheFirstKeyFrameAfterItIsReady() {
        let queue: [Bool?] = [true, false, false, nil, false, nil, true, false, true, false]
        let readyFrom = 2
        var old: [Int] = [], new: [Int] = []
        var handedOver = false
        for (index, isKeyFrame) in queue.enumerated() {
            if !handedOver, RTMPReconnectRequest.handsOver(replacementReady: index >= readyFrom, nextIsKeyFrame: isKeyFrame == true) {
                handedOver = true
            }
            if handedOver { new.append(index) } else { old.append(index) }
        }
        #expect(old == [0, 1, 2, 3, 4, 5], "the keyframe at 0 came before the replacement was ready")
        #expect(new == [6, 7, 8, 9])
        #expect(queue[new[0]] == true, "the new connection starts at a keyframe")
        #expect(Set(old).isDisjoint(with: new) && old.count + new.count == queue.count, "every item goes to exactly one connection")
    }
}
