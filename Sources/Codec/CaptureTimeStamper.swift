import MediaCore

/// Puts a ``CaptureTimeSEI`` into each H.264/H.265 access unit an output sends (`capture_time: sei`),
/// before the first coded slice (after any delimiter, parameter sets and the encoder's own SEI).
///
/// The stamped frame is written into one buffer the stamper keeps: once it has grown, a frame costs
/// no allocation as long as the caller is done with the previous stamped frame before asking for the
/// next (each sender packetizes or muxes it at once). AV1 frames pass through unchanged.
public struct CaptureTimeStamper: Sendable {
    /// Monotonic capture stamps → wall clock, sampled once so the stamps never jump while streaming.
    public let wallClock: WallClockMapping
    private var data: [UInt8] = []
    private var nalUnitRanges: [Range<Int>] = []

    public init(wallClock: WallClockMapping = .sampleNow()) {
        self.wallClock = wallClock
    }

    /// The frame with its capture time (``EncodedVideoFrame/ptsNanos``) inserted as a SEI NAL unit;
    /// the frame itself when it has no coded slice to put it before, or is AV1.
    public mutating func stamped(_ frame: EncodedVideoFrame) -> EncodedVideoFrame {
        let codec = frame.codec
        guard codec.usesNALUnits,
              let firstSlice = frame.nalUnitRanges.firstIndex(where: { codec.isVCL(nalUnitType: codec.nalUnitType(firstByte: frame.data[$0.lowerBound])) })
        else { return frame }
        let sei = CaptureTimeSEI(unixNanos: wallClock.wallClockNanos(forMonotonic: frame.ptsNanos))
        data.removeAll(keepingCapacity: true)
        nalUnitRanges.removeAll(keepingCapacity: true)
        data.reserveCapacity(frame.data.count + AnnexB.startCode.count * (frame.nalUnitRanges.count + 1) + CaptureTimeSEI.maximumNALUnitSize)
        for (index, range) in frame.nalUnitRanges.enumerated() {
            if index == firstSlice { append { sei.appendNALUnit(for: codec, to: &$0) } }
            append { $0.append(contentsOf: frame.data[range]) }
        }
        var stamped = frame
        stamped.data = data
        stamped.nalUnitRanges = nalUnitRanges
        return stamped
    }

    /// Appends a start code, then the NAL unit `write` appends, and records its range.
    private mutating func append(_ write: (inout [UInt8]) -> Void) {
        data.append(contentsOf: AnnexB.startCode)
        let start = data.count
        write(&data)
        nalUnitRanges.append(start..<data.count)
    }
}
