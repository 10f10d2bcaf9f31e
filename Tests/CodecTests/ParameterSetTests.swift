import Foundation
import Testing
@testable import Codec

/// SPS parsing and configuration records, checked against what ffprobe and FFmpeg's MP4 muxer
/// make of the very same streams.
@Suite struct ParameterSetTests {
    /// FuzzH264SPS's reproducer (Fuzz/Corpus/FuzzH264SPS/repro-scaling-list-delta-overflow): a
    /// scaling list's delta_scale near Int32.max overflowed `last + delta + 256` and trapped.
    @Test func scalingListDeltaOutOfRangeIsMalformed() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/FuzzH264SPS/repro-scaling-list-delta-overflow")
        let input = try [UInt8](Data(contentsOf: url))
        let sets = AnnexB.nalUnitRanges(in: input).filter { input[$0].first.map { $0 & 0x1F } == H264NALType.sps }
        let errors = sets.compactMap { range -> CodecError? in
            do throws(CodecError) {
                _ = try H264SPS(nalUnit: input[range])
                return nil
            } catch {
                return error
            }
        }
        #expect(errors.contains { "\($0)".contains("delta_scale") })
    }

    @Test(arguments: [
        (VideoEncoderSettings.Profile.baseline, 320, 240, "Constrained Baseline"),
        (.main, 352, 288, "Main"),
        (.high, 1280, 720, "High"),
        // 1080 is not a multiple of 16: the SPS crops 1088 → 1080.
        (.high, 1920, 1080, "High"),
        // Odd macroblock-unaligned width: 642 → cropped from 656.
        (.main, 642, 362, "Main"),
    ])
    func h264SPSMatchesFFprobe(profile: VideoEncoderSettings.Profile, width: Int, height: Int, ffprobeProfile: String) throws {
        let settings = VideoEncoderSettings(width: width, height: height, bitrateBitsPerSecond: 500_000, profile: profile, level: "4.0")
        let frames = try ExternalTools.encode(settings, count: 3)
        let path = ExternalTools.temporaryPath("sps-\(width)x\(height).h264")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ExternalTools.writeElementaryStream(frames, to: path)
        let stream = try ExternalTools.probeStream(path)

        let sets = try #require(frames.first?.parameterSets)
        let sps = try H264SPS(nalUnit: try #require(sets.sps.first))
        #expect(sps.width == stream["width"] as? Int)
        #expect(sps.height == stream["height"] as? Int)
        #expect(sps.width == width && sps.height == height)
        #expect(Int(sps.levelIDC) == stream["level"] as? Int)
        #expect(stream["profile"] as? String == ffprobeProfile)
        #expect(sps.profileIDC == (profile == .baseline ? 66 : profile == .main ? 77 : 100))
        if profile == .baseline {
            // constraint_set1 marks constrained baseline: what WebRTC's 42e01f/42c01f both mean.
            #expect(sps.constraintFlags & 0x40 != 0)
        }
    }

    @Test(arguments: [VideoEncoderSettings.Profile.baseline, .high])
    func avcCMatchesFFmpegMP4Muxer(profile: VideoEncoderSettings.Profile) throws {
        let settings = VideoEncoderSettings(width: 640, height: 360, bitrateBitsPerSecond: 500_000, profile: profile)
        let frames = try ExternalTools.encode(settings, count: 3)
        let raw = ExternalTools.temporaryPath("avcc-\(profile).h264"), mp4 = ExternalTools.temporaryPath("avcc-\(profile).mp4")
        defer { for path in [raw, mp4] { try? FileManager.default.removeItem(atPath: path) } }
        try ExternalTools.writeElementaryStream(frames, to: raw)
        try ExternalTools.run("ffmpeg", ["-v", "error", "-y", "-f", "h264", "-i", raw, "-c", "copy", mp4])
        let reference = try ExternalTools.mp4BoxBody("avcC", in: mp4)
        let ours = try #require(try frames[0].parameterSets.decoderConfigurationRecord())
        #expect(ours == reference)
        let parsed = try AVCDecoderConfigurationRecord(bytes: reference)
        #expect(parsed.sps == frames[0].parameterSets.sps && parsed.pps == frames[0].parameterSets.pps)
    }

    @Test func avcCNeedsBothParameterSets() {
        #expect(throws: CodecError.self) { try AVCDecoderConfigurationRecord(sps: [], pps: [[0x68]]) }
        #expect(throws: CodecError.self) { try AVCDecoderConfigurationRecord(sps: [[0x67, 0x64, 0, 0x1F]], pps: []) }
    }

    @Test func hevcSPSAndHvcCMatchFFmpeg() throws {
        let settings = VideoEncoderSettings(encoderName: "libx265", width: 320, height: 240, bitrateBitsPerSecond: 300_000,
                                            preset: "ultrafast", tune: nil)
        let frames = try ExternalTools.encode(settings, count: 3)
        let raw = ExternalTools.temporaryPath("hvcc.hevc"), mp4 = ExternalTools.temporaryPath("hvcc.mp4")
        defer { for path in [raw, mp4] { try? FileManager.default.removeItem(atPath: path) } }
        try ExternalTools.writeElementaryStream(frames, to: raw)
        let stream = try ExternalTools.probeStream(raw)
        let sets = try #require(frames.first?.parameterSets)
        #expect(sets.isComplete)
        let sps = try HEVCSPS(nalUnit: try #require(sets.sps.first))
        #expect(sps.width == stream["width"] as? Int && sps.width == 320)
        #expect(sps.height == stream["height"] as? Int && sps.height == 240)
        #expect(Int(sps.generalLevelIDC) == stream["level"] as? Int)
        #expect(stream["profile"] as? String == "Main" && sps.generalProfileIDC == 1)

        try ExternalTools.run("ffmpeg", ["-v", "error", "-y", "-f", "hevc", "-i", raw, "-c", "copy", mp4])
        let reference = try ExternalTools.mp4BoxBody("hvcC", in: mp4)
        let ours = try #require(try sets.decoderConfigurationRecord())
        // Everything but min_spatial_segmentation/parallelismType (bytes 13…15, VUI-derived) and
        // avgFrameRate (bytes 19…20) must agree byte for byte.
        let skipped: Set<Int> = [13, 14, 15, 19, 20]
        #expect(ours.count == reference.count)
        for index in 0..<min(ours.count, reference.count) where !skipped.contains(index) {
            #expect(ours[index] == reference[index], "hvcC byte \(index)")
        }
    }
}
