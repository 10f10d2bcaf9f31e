import Testing
import MediaCore
@testable import Codec

/// The encoder end to end: encode the moving test pattern, decode it back with libavcodec.
@Suite struct VideoEncoderTests {
    static let fps = 30

    /// Frame number of an access unit, from its capture-time pts.
    static func frameNumber(_ frame: EncodedVideoFrame, _ video: SyntheticVideo) -> Int {
        Int(((frame.ptsNanos - video.startNanos) * Int64(video.framesPerSecond) + 500_000_000) / 1_000_000_000)
    }

    @Test func encodes300FramesAt720pAndDecodesThemBack() throws {
        let settings = VideoEncoderSettings(width: 1280, height: 720, framesPerSecond: Self.fps, bitrateBitsPerSecond: 2_500_000)
        let encoder = try VideoEncoder(settings: settings)
        let video = SyntheticVideo(width: 1280, height: 720, framesPerSecond: Self.fps)
        let requested: Set<Int> = [45, 100, 200]
        var encoded = [EncodedVideoFrame]()
        for number in 0..<300 {
            if requested.contains(number) { encoder.requestKeyFrame() }
            let frame = try #require(try video.frame(number: number))
            try encoder.encode(frame) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }

        #expect(encoded.count == 300)
        #expect(encoded.map { Self.frameNumber($0, video) } == Array(0..<300))
        #expect(encoded.allSatisfy { $0.ptsNanos == $0.dtsNanos })
        // Every 2 s (60 frames), counted from the last keyframe, and each requested frame itself.
        var expectedKeys = [Int](), last = 0
        for number in 0..<300 where number == 0 || requested.contains(number) || number - last == 60 {
            expectedKeys.append(number)
            last = number
        }
        #expect(expectedKeys == [0, 45, 100, 160, 200, 260])
        #expect(encoded.indices.filter { encoded[$0].isKeyFrame } == expectedKeys)
        for frame in encoded {
            let types = frame.nalUnitTypes
            if frame.isKeyFrame {
                // Real IDRs with SPS and PPS repeated in band before them.
                #expect(types.contains(H264NALType.sps) && types.contains(H264NALType.pps) && types.contains(H264NALType.idrSlice))
            } else {
                #expect(!types.contains(H264NALType.idrSlice))
            }
        }

        let decoder = try VideoDecoder(codec: .h264)
        var pictures = [VideoDecoder.Picture]()
        for frame in encoded { pictures += try decoder.decode(frame) }
        pictures += try decoder.flush()
        #expect(pictures.count == 300)
        var psnrs = [Double](), codes = [UInt32]()
        let reference = SyntheticVideo(width: 1280, height: 720, framesPerSecond: Self.fps, poolCapacity: 1)
        for (number, picture) in pictures.enumerated() {
            #expect(picture.buffer.width == 1280 && picture.buffer.height == 720)
            let source = try #require(try reference.frame(number: number))
            psnrs.append(try picture.buffer.psnr(against: source.buffer))
            codes.append(FrameCode.read(from: picture.buffer)?.frameNumber ?? UInt32.max)
        }
        let mean = psnrs.reduce(0, +) / Double(psnrs.count)
        #expect(mean > 35, "mean PSNR \(mean) dB, worst \(psnrs.min() ?? 0) dB")
        #expect(codes == (0..<300).map(UInt32.init))
    }

    @Test func bitrateChangeShowsInTheOutputWithinTwoSeconds() throws {
        let settings = VideoEncoderSettings(width: 1280, height: 720, framesPerSecond: Self.fps, bitrateBitsPerSecond: 2_500_000)
        let encoder = try VideoEncoder(settings: settings)
        let video = SyntheticVideo(width: 1280, height: 720, framesPerSecond: Self.fps, fineDetail: true)
        let changeAt = 120 // 4 s
        var bytesPerSecond = [Int](repeating: 0, count: 7)
        var keyFrames = [Int]()
        for number in 0..<(7 * Self.fps) {
            if number == changeAt { try encoder.setBitrate(1_000_000) }
            let frame = try #require(try video.frame(number: number))
            try encoder.encode(frame) { encoded in
                let n = Self.frameNumber(encoded, video)
                bytesPerSecond[n / Self.fps] += encoded.data.count
                if encoded.isKeyFrame { keyFrames.append(n) }
            }
        }
        let bitsPerSecond = bytesPerSecond.map { $0 * 8 }
        // Before: the 2 s GOP ahead of the change runs at 2.5 Mbps. After: the second ending 2 s after
        // the change (4 s) runs at 1 Mbps; the first second after may still spend the VBV buffer
        // filled at the old rate (and holds the keyframe at 4 s).
        let before = (bitsPerSecond[2] + bitsPerSecond[3]) / 2
        #expect((2_000_000...3_000_000).contains(before), "per second: \(bitsPerSecond)")
        #expect((750_000...1_250_000).contains(bitsPerSecond[5]), "per second: \(bitsPerSecond)")
        // libx264 reconfigures in place: no extra keyframe at the change.
        #expect(keyFrames == [0, 60, 120, 180])
        #expect(encoder.settings.bitrateBitsPerSecond == 1_000_000)
    }

    /// maxrate 3M and bufsize 1.25M (half a second) at 2.5 Mbit/s, lowered to 500 kbit/s as
    /// congestion control would: both keep their proportion (600k, 250k), which x264 gets, so no
    /// frame after the change, key frames included, is larger than the smaller buffer; back at
    /// 2.5 Mbit/s they are the configured values again.
    @Test func anExplicitMaxrateAndBufsizeKeepTheirProportionToALoweredBitrate() throws {
        let settings = VideoEncoderSettings(width: 1280, height: 720, framesPerSecond: Self.fps, bitrateBitsPerSecond: 2_500_000,
                                            maxBitrateBitsPerSecond: 3_000_000, bufferSizeBits: 1_250_000)
        let encoder = try VideoEncoder(settings: settings)
        let video = SyntheticVideo(width: 1280, height: 720, framesPerSecond: Self.fps, fineDetail: true)
        let changeAt = 60
        var largestBefore = 0, largestAfter = 0, keyFramesAfter = 0
        for number in 0..<(5 * Self.fps) {
            if number == changeAt { try encoder.setBitrate(500_000) }
            let frame = try #require(try video.frame(number: number))
            try encoder.encode(frame) { encoded in
                let n = Self.frameNumber(encoded, video)
                if n < changeAt {
                    largestBefore = max(largestBefore, encoded.data.count)
                } else if n >= changeAt + Self.fps {
                    largestAfter = max(largestAfter, encoded.data.count)
                    if encoded.isKeyFrame { keyFramesAfter += 1 }
                }
            }
        }
        #expect(encoder.settings.maxBitrateBitsPerSecond == 600_000 && encoder.settings.bufferSizeBits == 250_000, "\(encoder.settings)")
        #expect(keyFramesAfter >= 1)
        #expect(largestAfter * 8 <= 250_000 * 11 / 10, "largest frame a second after the change \(largestAfter) B, before \(largestBefore) B")
        try encoder.setBitrate(2_500_000)
        #expect(encoder.settings.maxBitrateBitsPerSecond == 3_000_000 && encoder.settings.bufferSizeBits == 1_250_000, "\(encoder.settings)")
    }

    @Test func rotatesPhysicallyWhenTheOutputCannotCarryRotation() throws {
        let settings = VideoEncoderSettings(width: 240, height: 320, bitrateBitsPerSecond: 500_000)
        let encoder = try VideoEncoder(settings: settings)
        let video = SyntheticVideo(width: 320, height: 240)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<3 {
            let frame = try #require(try video.frame(number: number, rotation: .clockwise90))
            try encoder.encode(frame) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        let sps = try H264SPS(nalUnit: try #require(encoded.first?.parameterSets.sps.first))
        #expect(sps.width == 240 && sps.height == 320)
        #expect(encoded.count == 3)
    }

    /// Settings at the capture's landscape size, frames turned a quarter: the encoder follows the
    /// portrait picture (reopening once) instead of squeezing it, and the frames carry no rotation.
    @Test func followsAQuarterTurnInsteadOfSqueezingThePicture() throws {
        let (encoded, size) = try Self.encodeRotated(.clockwise270, handling: .rotatePhysically)
        #expect(size == [240, 320])
        #expect(encoded.count == 3 && encoded.allSatisfy { $0.rotation == .none })
    }

    /// A rendition smaller than the capture, frames turned a quarter: it scales to its own size
    /// turned the same way (portrait 180x320), never squeezing the portrait picture into 320x180.
    @Test func aSmallerRenditionFollowsAQuarterTurnToo() throws {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: 320, height: 180, bitrateBitsPerSecond: 300_000, rotation: .rotatePhysically))
        let video = SyntheticVideo(width: 640, height: 360)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<3 {
            try encoder.encode(try #require(try video.frame(number: number, rotation: .clockwise90))) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        let sps = try H264SPS(nalUnit: try #require(encoded.first?.parameterSets.sps.first))
        #expect([sps.width, sps.height] == [180, 320])
        #expect(encoded.count == 3 && encoded.first?.isKeyFrame == true && encoded.allSatisfy { $0.rotation == .none })
    }

    /// For outputs that signal rotation (WebRTC's video orientation) the pixels stay as captured and
    /// each encoded frame says how far the receiver must turn it.
    @Test func passesRotationThroughAsFrameMetadata() throws {
        let (encoded, size) = try Self.encodeRotated(.clockwise90, handling: .passThrough)
        #expect(size == [320, 240])
        #expect(encoded.count == 3 && encoded.allSatisfy { $0.rotation == .clockwise90 })
    }

    /// A receiver that cannot apply rotation joins a pass-through encode: from the next frame the
    /// encoder turns the pixels (an IDR at the portrait size, clockwise as the metadata said) and
    /// the frames carry rotation `.none`; the frames before keep theirs.
    @Test func switchesFromPassingRotationThroughToTurningPixelsAtAKeyFrame() throws {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 500_000, rotation: .passThrough))
        let video = SyntheticVideo(width: 320, height: 240)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<6 {
            if number == 3 { encoder.rotatePixels() }
            try encoder.encode(try #require(try video.frame(number: number, rotation: .clockwise90))) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        #expect(encoded.map(\.rotation) == [.clockwise90, .clockwise90, .clockwise90, .none, .none, .none])
        #expect(encoded.map(\.isKeyFrame) == [true, false, false, true, false, false])
        #expect(encoder.settings.rotation == .rotatePhysically && encoder.settings.width == 240 && encoder.settings.height == 320)

        let decoder = try VideoDecoder(codec: .h264)
        var pictures = [VideoDecoder.Picture]()
        for frame in encoded { pictures += try decoder.decode(frame) }
        pictures += try decoder.flush()
        try #require(pictures.count == 6)
        let reference = SyntheticVideo(width: 320, height: 240, poolCapacity: 1)
        for (number, picture) in pictures.enumerated() {
            let source = try #require(try reference.frame(number: number))
            guard number >= 3 else {
                #expect(picture.buffer.width == 320 && picture.buffer.height == 240)
                #expect(try picture.buffer.psnr(against: source.buffer) > 30, "frame \(number)")
                continue
            }
            // Turned clockwise (the 90° the metadata asked for): turning it back shows the frame code on top.
            let turned = try I420Buffer(width: 240, height: 320), turnedBack = try I420Buffer(width: 320, height: 240)
            try source.buffer.rotate(by: .clockwise90, into: turned)
            try picture.buffer.rotate(by: .clockwise270, into: turnedBack)
            #expect(picture.buffer.width == 240 && picture.buffer.height == 320)
            #expect(try picture.buffer.psnr(against: turned) > 30, "frame \(number)")
            #expect(FrameCode.read(from: turnedBack)?.frameNumber == UInt32(number), "frame \(number)")
        }
    }

    /// An encoder that reopens for a bitrate change gets both at the same frame (as ``EncoderQueue``
    /// applies them): the reopen keeps the switch to turning pixels.
    @Test func aBitrateChangeWaitingForTheNextFrameKeepsTheSwitchToTurningPixels() throws {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(encoderName: "libx265", width: 320, height: 240, bitrateBitsPerSecond: 400_000,
                                                                      preset: "ultrafast", tune: nil, rotation: .passThrough))
        let video = SyntheticVideo(width: 320, height: 240)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<6 {
            if number == 3 {
                try encoder.setBitrate(200_000)
                encoder.rotatePixels()
            }
            try encoder.encode(try #require(try video.frame(number: number, rotation: .clockwise90))) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        #expect(encoded.map(\.rotation) == [.clockwise90, .clockwise90, .clockwise90, .none, .none, .none])
        #expect(encoder.settings.rotation == .rotatePhysically && encoder.settings.width == 240 && encoder.settings.height == 320)
        #expect(encoder.settings.bitrateBitsPerSecond == 200_000)
    }

    /// Three 320x240 frames with `rotation`, encoded at the capture's size: the frames and the SPS's size.
    static func encodeRotated(_ rotation: VideoRotation, handling: VideoEncoderSettings.RotationHandling) throws -> ([EncodedVideoFrame], [Int]) {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 500_000, rotation: handling))
        let video = SyntheticVideo(width: 320, height: 240)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<3 {
            try encoder.encode(try #require(try video.frame(number: number, rotation: rotation))) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        let sps = try H264SPS(nalUnit: try #require(encoded.first?.parameterSets.sps.first))
        return (encoded, [sps.width, sps.height])
    }

    @Test func scalesFramesOfAnotherSizeToTheConfiguredSize() throws {
        let settings = VideoEncoderSettings(width: 640, height: 360, bitrateBitsPerSecond: 1_000_000)
        let encoder = try VideoEncoder(settings: settings)
        let video = SyntheticVideo(width: 1280, height: 720)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<5 {
            try encoder.encode(try #require(try video.frame(number: number))) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        let decoder = try VideoDecoder(codec: .h264)
        var pictures = [VideoDecoder.Picture]()
        for frame in encoded { pictures += try decoder.decode(frame) }
        pictures += try decoder.flush()
        #expect(pictures.count == 5)
        #expect(pictures.allSatisfy { $0.buffer.width == 640 && $0.buffer.height == 360 })
        // The frame code halves with the picture (16-pixel blocks → 8) and still reads.
        #expect(pictures.map { FrameCode.read(from: $0.buffer)?.frameNumber } == [0, 1, 2, 3, 4])
    }

    @Test func reopensAtANewSizeWithAKeyframeWhenConfigured() throws {
        var settings = VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 500_000)
        settings.sizeChange = .reopen
        let encoder = try VideoEncoder(settings: settings)
        let small = SyntheticVideo(width: 320, height: 240), large = SyntheticVideo(width: 640, height: 480, startNanos: 2_000_000_000)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<3 { try encoder.encode(try #require(try small.frame(number: number))) { encoded.append($0) } }
        for number in 0..<3 { try encoder.encode(try #require(try large.frame(number: number))) { encoded.append($0) } }
        try encoder.flush { encoded.append($0) }
        #expect(encoded.map(\.isKeyFrame) == [true, false, false, true, false, false])
        let sizes = try encoded.filter(\.isKeyFrame).map { frame in
            let sps = try H264SPS(nalUnit: try #require(frame.parameterSets.sps.first))
            return [sps.width, sps.height]
        }
        #expect(sizes == [[320, 240], [640, 480]])
    }

    @Test func reopensEncodersThatCannotReconfigureWithAKeyframe() throws {
        let settings = VideoEncoderSettings(encoderName: "libx265", width: 320, height: 240, bitrateBitsPerSecond: 400_000,
                                            preset: "ultrafast", tune: nil)
        let encoder = try VideoEncoder(settings: settings)
        let video = SyntheticVideo(width: 320, height: 240)
        var encoded = [EncodedVideoFrame]()
        for number in 0..<6 {
            if number == 3 { try encoder.setBitrate(200_000) }
            try encoder.encode(try #require(try video.frame(number: number))) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        #expect(encoded.count == 6)
        #expect(encoded.indices.filter { encoded[$0].isKeyFrame } == [0, 3])
        #expect(encoded.allSatisfy { $0.codec == .hevc })
    }
}
