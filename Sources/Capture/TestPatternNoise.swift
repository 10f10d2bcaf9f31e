import CYUV
import MediaCore

/// Fresh grain over the test pattern's luma each frame, for `testpattern:busy`: content an encoder
/// cannot predict from the previous frame, so it spends its whole bitrate as it would on a real
/// camera's sensor noise (the plain pattern needs ~100 kbit/s at 720p). Each row is blended with
/// libyuv's BlendPlane against a row-sized window at a pseudo-random offset of a pool of random
/// bytes made once at open, so the per-frame cost is one libyuv call per row and no allocation.
struct TestPatternNoise {
    /// How much of each pixel the grain makes up (of 255): strong enough to use the bitrate,
    /// weak enough that the bars and the box still show.
    static let strength: UInt8 = 72
    private static let poolBytes = 1 << 20

    private let pool: [UInt8]
    /// One row of the grain's weight; BlendPlane takes the weight of its first source.
    private let weights: [UInt8]

    init(width: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        pool = (0..<max(Self.poolBytes, width * 2)).map { _ in UInt8(truncatingIfNeeded: Self.next(&state) >> 56) }
        weights = [UInt8](repeating: Self.strength, count: width)
    }

    /// Blends fresh grain into rows `firstRow...` of `buffer`'s luma for frame `frameNumber`.
    func apply(to buffer: I420Buffer, frameNumber: UInt64, firstRow: Int) {
        let span = pool.count - buffer.width
        var state = frameNumber &* 0xD1B5_4A32_D192_ED03
        pool.withUnsafeBufferPointer { pool in
            weights.withUnsafeBufferPointer { weights in
                for row in firstRow..<buffer.height {
                    let offset = Int(Self.next(&state) % UInt64(span))
                    let line = buffer.dataY + row * buffer.strideY
                    BlendPlane(pool.baseAddress! + offset, 0, line, 0, weights.baseAddress!, 0, line, 0, Int32(buffer.width), 1)
                }
            }
        }
    }

    /// SplitMix64: cheap, well-spread, and the same sequence on every run.
    private static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
