import Codec
import Testing

/// Two renditions of one camera adapting together: the overload only the top encoder measures
/// steps the lower rendition down first, and headroom brings the top one back first.
@Suite struct CPUAdaptationPeersTests {
    static let interval: Int64 = 33_333_333  // 30 fps

    /// A camera's two renditions, each with frame-rate rungs only (30 → 20 → 15), fed frame by
    /// frame the way their encoder threads would be.
    struct Camera {
        let peers = CPUAdaptationPeers(count: 2)
        var renditions: [CPUAdaptation]
        var nowNanos: Int64 = 0
        /// Each step taken, as (rendition index, step).
        var steps: [(Int, CPUAdaptation.Step)] = []

        init(upAfterSeconds: Double) {
            renditions = [(1280, 720), (640, 360)].map { width, height in
                CPUAdaptation(width: width, height: height, framesPerSecond: 30,
                              settings: CPUAdaptationSettings(minimumWidth: width, minimumHeight: height, minimumFramesPerSecond: 15,
                                                              upAfterSeconds: upAfterSeconds))
            }
        }

        /// `seconds` of frames, rendition i taking `encodeMillis[i]` per frame.
        mutating func run(seconds: Double, encodeMillis: [Double]) {
            for _ in 0..<Int(seconds * 30) {
                nowNanos += CPUAdaptationPeersTests.interval
                for index in renditions.indices {
                    if let overload = peers.takeRequestedStepDown(index),
                       let step = renditions[index].stepDown(for: overload, nowNanos: nowNanos, peers: (peers, index)) {
                        steps.append((index, step))
                    }
                    if let step = renditions[index].afterFrame(encodeNanos: Int64(encodeMillis[index] * 1e6), totalDroppedFrames: 0,
                                                               nowNanos: nowNanos, peers: (peers, index)) {
                        steps.append((index, step))
                    }
                }
            }
        }

        var rungs: [String] { renditions.map(\.status.rung.description) }
    }

    @Test func theTopEncodersOverloadStepsTheLowestRenditionDownFirst() throws {
        var camera = Camera(upAfterSeconds: 60)
        // Only the 720p encoder is over its frame interval (70 ms against 33.3, too much even at 15 fps); the 360p one is light.
        camera.run(seconds: 6, encodeMillis: [70, 5])
        let first = try #require(camera.steps.first)
        #expect(first.0 == 1 && first.1.isDown, "the lowest-priority rendition gives way first: \(camera.steps)")
        #expect(first.1.description.hasPrefix("a sibling rendition's encoder overloaded: 70 ms per frame against 33.3 ms; stepping 640x360@30 → 640x360@20"),
                "\(first.1)")
        #expect(camera.rungs[0] == "1280x720@30", "the top rendition holds while a lower one can still step: \(camera.rungs)")
        // The overload goes on: the lower rendition reaches its floor, then the top one steps.
        camera.run(seconds: 20, encodeMillis: [70, 5])
        let order = camera.steps.map(\.0)
        #expect(order.prefix(2) == [1, 1] && order.dropFirst(2).allSatisfy { $0 == 0 }, "steps by rendition: \(order)")
        #expect(camera.rungs == ["1280x720@15", "640x360@15"], "\(camera.rungs)")
    }

    /// An encoder reports as it opens (`EncoderQueue`): a lower rendition that has not encoded a
    /// frame yet still gives way first, rather than being taken for one at its floor.
    @Test func aLowerRenditionThatHasNotEncodedYetStillGivesWayFirst() throws {
        var camera = Camera(upAfterSeconds: 60)
        camera.renditions[1].report(to: (camera.peers, 1))
        for _ in 0..<(6 * 30) {
            camera.nowNanos += Self.interval
            if let step = camera.renditions[0].afterFrame(encodeNanos: 70_000_000, totalDroppedFrames: 0, nowNanos: camera.nowNanos,
                                                           peers: (camera.peers, 0)) {
                camera.steps.append((0, step))
            }
        }
        #expect(camera.steps.isEmpty, "the top rendition held: \(camera.steps)")
        let asked = try #require(camera.peers.takeRequestedStepDown(1), "the lower rendition was asked to step down")
        #expect(asked.hasPrefix("encoder overloaded: 70 ms per frame"), "\(asked)")
    }

    @Test func headroomBringsTheTopRenditionBackFirst() throws {
        var camera = Camera(upAfterSeconds: 3)
        camera.run(seconds: 30, encodeMillis: [70, 70])
        #expect(camera.rungs == ["1280x720@15", "640x360@15"], "\(camera.steps.map { ($0.0, $0.1.description) })")
        let downs = camera.steps.count
        // The load is lifted: both encoders have headroom.
        camera.run(seconds: 60, encodeMillis: [4, 2])
        let ups = camera.steps.dropFirst(downs)
        #expect(ups.allSatisfy { $0.1.isDown == false }, "\(ups.map { ($0.0, $0.1.description) })")
        #expect(ups.map(\.0) == [0, 0, 1, 1], "the top rendition climbs back before the lower one: \(ups.map(\.0))")
        #expect(camera.rungs == ["1280x720@30", "640x360@30"])
    }

    @Test func aRenditionAloneAdaptsOnItsOwnMeasurements() {
        let peers = CPUAdaptationPeers(count: 1)
        #expect(peers.anyCanStepDown == false, "nothing reported yet: one rung")
        peers.report(0, rungIndex: 0, rungCount: 3, hasHeadroom: false)
        #expect(peers.stepDownTarget(overloadedBy: 0, reason: "x") == 0)
        #expect(peers.takeRequestedStepDown(0) == nil, "its own step is not asked of it again")
        #expect(peers.mayStepUp(0) == false, "no headroom reported")
    }
}
