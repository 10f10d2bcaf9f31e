import Testing
@testable import WebRTCTransport

/// WHEP's hand-off queue is bounded per rendition: a burst of one rendition fills only its own
/// share, the other renditions' frames still get in, and drops are counted where they happened.
@Suite struct RenditionHandOffBoundTests {
    @Test func aBurstOfOneRenditionLeavesTheOthersTheirRoom() {
        var bound = RenditionHandOffBound(capacity: 3, renditions: 3)
        // The top rendition floods: its first three wait, the next five are dropped.
        let top = (0..<8).map { _ in bound.enqueue(rendition: 0) }
        #expect(top == [true, true, true, false, false, false, false, false])
        // The lower renditions are untouched by that burst.
        let lower = [bound.enqueue(rendition: 1), bound.enqueue(rendition: 2)]
        #expect(lower == [true, true])
        #expect(bound.pending == [3, 1, 1])
        #expect(bound.dropped == [5, 0, 0])
        #expect(bound.totalDropped == 5)
    }

    @Test func aFrameTakenByTheEventLoopFreesItsRenditionsRoom() {
        var bound = RenditionHandOffBound(capacity: 2, renditions: 2)
        let filled = (0..<3).map { _ in bound.enqueue(rendition: 1) }
        #expect(filled == [true, true, false])
        bound.dequeue(rendition: 0)  // rendition 0 had nothing waiting: stays at zero
        let afterOther = bound.enqueue(rendition: 1)
        #expect(!afterOther, "another rendition's departure made no room")
        bound.dequeue(rendition: 1)
        let afterOwn = bound.enqueue(rendition: 1)
        #expect(afterOwn)
        #expect(bound.pending == [0, 2])
        #expect(bound.dropped == [0, 2])
    }

    /// One encode (no renditions prepared) is rendition 0; an index out of range counts there too,
    /// as the key-frame gates treat it.
    @Test(arguments: [0, 1]) func oneRenditionOrAnUnknownIndexCountsAsTheFirst(renditions: Int) {
        var bound = RenditionHandOffBound(capacity: 1, renditions: renditions)
        let admitted = [bound.enqueue(rendition: 0), bound.enqueue(rendition: 4)]
        #expect(admitted == [true, false])
        #expect(bound.pending == [1] && bound.dropped == [1])
    }
}
