import Codec
import Output
import Testing

/// A frame that finds its socket backed up is dropped, not queued without bound; the delta frames
/// after it wait for a key frame, asked for once per gap and once more when the socket takes frames
/// again if that key frame was dropped too (a real socket backs up only on a stalled link:
/// ``WHEPStallTests`` stalls one; here the writability is given).
@Suite struct SocketBacklogGateTests {
    static let key = KeyFrameGateTests.frame(key: true)
    static let delta = KeyFrameGateTests.frame(key: false)

    @Test func dropsWhileTheSocketIsBackedUpAndHoldsDeltaFramesUntilAKeyFrameGoesOut() {
        var gate = SocketBacklogGate()
        var requests = 0
        func admits(_ frame: EncodedVideoFrame, writable: Bool) -> Bool {
            gate.admits(frame, socketWritable: writable) { requests += 1 }
        }
        #expect(admits(Self.key, writable: true) && admits(Self.delta, writable: true), "frames pass while the socket takes them")
        #expect(!admits(Self.delta, writable: false), "a backed-up socket drops the frame")
        #expect(gate.framesDropped == 1 && requests == 1, "the drop asks for a key frame at once")
        #expect(!admits(Self.delta, writable: false), "a delta frame after the drop is held")
        #expect(gate.framesDropped == 1 && gate.framesHeldBack == 1 && requests == 1, "held, not dropped; no second request")
        #expect(!admits(Self.key, writable: false), "a key frame that finds the socket still backed up is dropped too")
        #expect(!admits(Self.delta, writable: false) && !admits(Self.key, writable: false) && !admits(Self.delta, writable: false))
        #expect(gate.framesDropped == 3 && gate.framesHeldBack == 3 && requests == 1, "no request per frame while the link is stalled")
        #expect(!admits(Self.delta, writable: true), "writable again: a delta frame still waits for the key frame")
        #expect(requests == 2, "asked for once the socket takes frames again")
        #expect(admits(Self.key, writable: true) && admits(Self.delta, writable: true), "the key frame ends the gap")
        #expect(gate.framesDropped == 3 && gate.framesHeldBack == 4 && requests == 2)
        #expect(!admits(Self.delta, writable: false) && requests == 3, "a later backlog asks at once again")
    }

    @Test func aKeyFrameThatGetsThroughNeedsNoSecondRequest() {
        var gate = SocketBacklogGate()
        var requests = 0
        #expect(!gate.admits(Self.delta, socketWritable: false) { requests += 1 })
        #expect(gate.admits(Self.key, socketWritable: true) { requests += 1 }, "the key frame asked for goes out")
        #expect(gate.admits(Self.delta, socketWritable: true) { requests += 1 } && requests == 1 && gate.framesHeldBack == 0)
    }
}
