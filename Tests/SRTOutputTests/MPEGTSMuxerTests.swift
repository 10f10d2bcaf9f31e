import Codec
@testable import SRTOutput
import Testing

/// The muxer hands over whole SRT payloads: 7 × 188-byte TS packets (fewer only where a video
/// frame ends), starting with SDT, PAT and PMT, with the video PID carrying PCR.
@Suite struct MPEGTSMuxerTests {
    /// An H.264 access unit in Annex B: SPS, PPS and an IDR slice on a keyframe, a P slice otherwise.
    static func frame(_ index: Int, payload: Int) -> EncodedVideoFrame { frame(index, payload: payload, key: index % 30 == 0) }

    /// The same, a keyframe when `key` says so (a sender asks for them).
    static func frame(_ index: Int, payload: Int, key: Bool) -> EncodedVideoFrame {
        let sps: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1E, 0xD9, 0x00, 0xA0, 0x47, 0xFE, 0x88]
        let pps: [UInt8] = [0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80]
        let slice: [UInt8] = [0, 0, 0, 1, key ? 0x65 : 0x41] + [UInt8](repeating: UInt8(truncatingIfNeeded: index | 1), count: payload)
        let data = key ? sps + pps + slice : slice
        let nanos = Int64(index) * 33_333_333
        return EncodedVideoFrame(codec: .h264, data: data, nalUnitRanges: AnnexB.nalUnitRanges(in: data), ptsNanos: nanos, dtsNanos: nanos,
                                 isKeyFrame: key, parameterSets: ParameterSets(codec: .h264, annexB: sps + pps, nalUnitRanges: AnnexB.nalUnitRanges(in: sps + pps)),
                                 rotation: .none)
    }

    @Test func payloadsAreWholeTSPacketsOf1316BytesAtMost() throws {
        var payloads: [[UInt8]] = []
        let muxer = try MPEGTSMuxer(codec: .h264, audio: nil, originNanos: 0) { bytes in
            payloads.append(Array(bytes))
            return true
        }
        for index in 0..<60 { try muxer.write(Self.frame(index, payload: 3000 + index * 7)) }
        muxer.finish()
        #expect(payloads.count > 60)
        #expect(payloads.allSatisfy { $0.count <= 1316 && $0.count % 188 == 0 }, "\(payloads.map(\.count).filter { $0 % 188 != 0 || $0 > 1316 })")
        #expect(payloads.allSatisfy { payload in stride(from: 0, to: payload.count, by: 188).allSatisfy { payload[$0] == 0x47 } }, "sync bytes")
        #expect(payloads.filter { $0.count == 1316 }.count * 2 > payloads.count, "most payloads are full")
        let packets = payloads.flatMap { payload in stride(from: 0, to: payload.count, by: 188).map { Array(payload[$0..<$0 + 188]) } }
        let pids = packets.map { (Int($0[1] & 0x1F) << 8) | Int($0[2]) }
        // SDT (PID 17), PAT (0) and PMT (libavformat's 0x1000) lead the first payload, before any media.
        #expect(Array(pids.prefix(3)) == [17, 0, 0x1000], "\(pids.prefix(5))")
        #expect(pids.filter { $0 == 0 }.count >= 2, "PAT repeats")
        // adaptation field present (bit 5 of byte 3) with the PCR flag (0x10 of byte 5).
        let pcr = packets.filter { $0[3] & 0x20 != 0 && $0[4] > 0 && $0[5] & 0x10 != 0 }
        #expect(pcr.count >= 10, "PCR on the video PID: \(pcr.count)")
    }

    @Test func aFailedSendFailsTheWrite() throws {
        let muxer = try MPEGTSMuxer(codec: .h264, audio: nil, originNanos: 0) { _ in false }
        #expect(throws: SRTOutputError.self) {
            for index in 0..<10 { try muxer.write(Self.frame(index, payload: 4000)) }
        }
    }
}
