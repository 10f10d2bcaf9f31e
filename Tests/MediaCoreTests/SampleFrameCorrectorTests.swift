import MediaCore
import Testing

@Suite struct SampleFrameCorrectorTests {
    /// Stereo ramp chunks: left counts up from `first`, right is its negative.
    static func ramp(from first: Int, frames: Int) -> [Int16] {
        (0..<frames).flatMap { [Int16(truncatingIfNeeded: first + $0), Int16(truncatingIfNeeded: -(first + $0))] }
    }

    static func correct(chunks: Int, frames: Int, correction: Double) -> (output: [Int16], corrector: SampleFrameCorrector) {
        var corrector = SampleFrameCorrector(channels: 2)
        var output: [Int16] = [], all: [Int16] = []
        for chunk in 0..<chunks {
            corrector.correct(ramp(from: chunk * frames, frames: frames), correction: correction, into: &output)
            all += output
        }
        return (all, corrector)
    }

    @Test func withoutCorrectionTheSamplesPassUnchanged() {
        let (output, corrector) = Self.correct(chunks: 10, frames: 480, correction: 0)
        #expect(output == (0..<10).flatMap { Self.ramp(from: $0 * 480, frames: 480) })
        #expect(corrector.netFrames == 0)
    }

    /// 0.2 % more: one midpoint frame every 500, evenly spread, the channels kept together.
    @Test func insertsMidpointFramesSpreadEvenly() {
        let (output, corrector) = Self.correct(chunks: 60, frames: 480, correction: 0.002)
        #expect(corrector.netFrames == 57)
        #expect(output.count == (28_800 + 57) * 2)
        let left = stride(from: 0, to: output.count, by: 2).map { Int(output[$0]) }
        #expect(stride(from: 0, to: output.count, by: 2).allSatisfy { output[$0] == -output[$0 + 1] }, "channels stay aligned")
        // A midpoint of n−1 and n rounds to n−1: the ramp holds for one frame where a frame went in.
        let repeats = zip(left.indices, zip(left, left.dropFirst())).filter { $0.1.0 == $0.1.1 }.map(\.0)
        #expect(repeats.count == 57)
        let gaps = zip(repeats, repeats.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { (500...502).contains($0) }, "inserts every 500 frames: \(Set(gaps))")
        #expect(zip(left, left.dropFirst()).allSatisfy { $1 - $0 <= 1 && $1 >= $0 }, "no step bigger than one sample")
    }

    @Test func dropsSingleFramesSpreadEvenly() {
        let (output, corrector) = Self.correct(chunks: 60, frames: 480, correction: -0.002)
        #expect(corrector.netFrames == -57)
        #expect(output.count == (28_800 - 57) * 2)
        let left = stride(from: 0, to: output.count, by: 2).map { Int(output[$0]) }
        let skips = zip(left, left.dropFirst()).filter { $1 - $0 == 2 }.count
        #expect(skips == 57)
        #expect(zip(left, left.dropFirst()).allSatisfy { (1...2).contains($1 - $0) })
    }

    /// A fraction carries over chunks: 0.0003 on 480-frame chunks inserts one frame every 3333.
    @Test func aFractionCarriesAcrossChunks() {
        let (_, corrector) = Self.correct(chunks: 1000, frames: 480, correction: 0.0003)
        #expect(abs(corrector.netFrames - 144) <= 1, "\(corrector.netFrames)")
    }
}
