import Codec
import Output
import Testing

/// After a lost frame nothing goes out until a key frame: a P-frame whose reference is gone
/// would decode to smeared video.
@Suite struct KeyFrameGateTests {
    static func frame(key: Bool) -> EncodedVideoFrame {
        EncodedVideoFrame(codec: .h264, data: [0, 0, 0, 1, key ? 0x65 : 0x41, 0x88], nalUnitRanges: [4..<6], ptsNanos: 0, dtsNanos: 0,
                          isKeyFrame: key, parameterSets: ParameterSets(codec: .h264))
    }

    @Test func holdsDeltaFramesFromALossToTheNextKeyFrame() {
        let gate = KeyFrameGate()
        #expect(gate.admits(Self.frame(key: true)) && gate.admits(Self.frame(key: false)), "frames pass before any loss")
        #expect(gate.frameLost(), "the first loss of a gap asks for a key frame")
        #expect(!gate.frameLost(), "a second loss in the same gap does not ask again")
        #expect(!gate.admits(Self.frame(key: false)) && !gate.admits(Self.frame(key: false)))
        #expect(gate.framesHeldBack == 2)
        #expect(gate.admits(Self.frame(key: true)), "the key frame ends the gap")
        #expect(gate.admits(Self.frame(key: false)))
        #expect(gate.frameLost(), "a later loss opens a new gap and asks again")
        #expect(gate.framesHeldBack == 2)
    }
}
