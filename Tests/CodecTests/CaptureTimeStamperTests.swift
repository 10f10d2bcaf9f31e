import MediaCore
import Testing
@testable import Codec

@Suite struct CaptureTimeStamperTests {
    static let mapping = WallClockMapping(offsetNanos: 1_764_393_600_000_000_000)

    static func frame(_ codec: VideoCodec, units: [[UInt8]], ptsNanos: Int64 = 5_000_000_123) -> EncodedVideoFrame {
        let data = AnnexB.join(units)
        return EncodedVideoFrame(codec: codec, data: data, nalUnitRanges: AnnexB.nalUnitRanges(in: data), ptsNanos: ptsNanos,
                                 dtsNanos: ptsNanos, isKeyFrame: true, parameterSets: ParameterSets(codec: codec))
    }

    @Test func putsTheSEIBeforeTheFirstSliceOfAnH264AccessUnit() {
        // Delimiter, SPS, PPS, the encoder's own SEI, then two slices of an IDR picture.
        let frame = Self.frame(.h264, units: [[0x09, 0xF0], [0x67, 0x64], [0x68, 0xEE], [0x06, 5, 1, 9, 0x80], [0x65, 1], [0x65, 2]])
        var stamper = CaptureTimeStamper(wallClock: Self.mapping)
        let stamped = stamper.stamped(frame)
        #expect(stamped.nalUnitTypes == [9, 7, 8, 6, 6, 5, 5])
        #expect(stamped.data == AnnexB.join(stamped.nalUnits.map(Array.init)))
        let sei = CaptureTimeSEI.parse(nalUnit: stamped.nalUnits[4], codec: .h264)
        #expect(sei == CaptureTimeSEI(unixNanos: Self.mapping.wallClockNanos(forMonotonic: 5_000_000_123)))
        #expect(Array(stamped.nalUnits[5]) == [0x65, 1])
    }

    @Test func usesAPrefixSEIForHEVC() {
        // VPS, SPS, PPS, then an IDR_W_RADL slice (type 19).
        let frame = Self.frame(.hevc, units: [[0x40, 1], [0x42, 1], [0x44, 1], [0x26, 1, 0xAF]])
        var stamper = CaptureTimeStamper(wallClock: Self.mapping)
        let stamped = stamper.stamped(frame)
        #expect(stamped.nalUnitTypes == [32, 33, 34, HEVCNALType.prefixSEI, 19])
        #expect(CaptureTimeSEI.parse(nalUnit: stamped.nalUnits[3], codec: .hevc) != nil)
    }

    @Test func leavesAV1AndFramesWithoutSlicesAlone() {
        var stamper = CaptureTimeStamper(wallClock: Self.mapping)
        let parameterSetsOnly = Self.frame(.h264, units: [[0x67, 0x64], [0x68, 0xEE]])
        #expect(stamper.stamped(parameterSetsOnly).data == parameterSetsOnly.data)
        let av1 = EncodedVideoFrame(codec: .av1, data: [0x12, 0, 0x32, 1, 7], nalUnitRanges: [0..<5], ptsNanos: 0, dtsNanos: 0,
                                    isKeyFrame: true, parameterSets: ParameterSets(codec: .av1))
        #expect(stamper.stamped(av1).data == av1.data)
    }

    /// The hot path: once the caller has let go of a stamped frame, the next one is written into the same storage.
    @Test func reusesItsBufferFromFrameToFrame() {
        var stamper = CaptureTimeStamper(wallClock: Self.mapping)
        let frame = Self.frame(.h264, units: [[0x67, 0x64], [0x68, 0xEE], [0x65, 1, 2, 3]])
        func stampedAddress(pts: Int64) -> UnsafeRawPointer? {
            var next = frame
            next.ptsNanos = pts
            return stamper.stamped(next).data.withUnsafeBytes { $0.baseAddress }
        }
        let first = stampedAddress(pts: 1)
        #expect(stampedAddress(pts: 2) == first)
        #expect(stampedAddress(pts: 3) == first)
    }
}
