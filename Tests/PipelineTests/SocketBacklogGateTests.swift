import Codec
import Pipeline
import Testing

/// A frame that finds its socket backed up is dropped, not queued without bound; the delta frames
/// after it wait for a key frame, asked for once per gap (a real socket backs up only on a stalled
/// link: ``WHEPStallTests`` stalls one; here the writability is given).
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
        #expect(!admits(Self.delta, writable: false) && !admits(Self.delta, writable: true),
                "delta frames after the drop are held, writable or not")
        #expect(gate.framesDropped == 1 && gate.framesHeldBack == 2 && requests == 1, "held, not dropped; no second request")
        #expect(!admits(Self.key, writable: false), "a key frame that finds the socket still backed up is dropped too")
        #expect(gate.framesDropped == 2 && requests == 2, "and asks for the next one")
        #expect(!admits(Self.delta, writable: true))
        #expect(admits(Self.key, writable: true) && admits(Self.delta, writable: true), "the key frame ends the gap")
        #expect(gate.framesDropped == 2 && gate.framesHeldBack == 3 && requests == 2)
    }
}
