import CFFmpeg
import LibAV
import MediaCore

/// A libavcodec video encoder: frames in (zero-copy), ``EncodedVideoFrame``s out.
///
/// Not thread-safe by design: one owner drives it (``EncoderQueue``'s thread in the pipeline, the
/// caller in tests and the bench). Pixels reach libavcodec as `AVFrame` references to the pooled
/// ``MediaCore/I420Buffer`` (see `I420Buffer.makeAVFrame()`); only rotation and rescaling write
/// new pixels, into buffers from a small pool, or (renditions of one size) from a ``SharedScaler``
/// that scales each captured frame once for all of them. ``preparation`` counts which it was.
///
/// Timestamps: pts = dts = capture time in ns through the codec (time base 1/1e9); with
/// B-frames off (always, for live) the encoder returns them unchanged.
///
/// Per-frame allocations that remain: the `AVFrame` shell, the output `[UInt8]` and its range
/// array (one each); parameter sets are shared, and copied only when they change.
public final class VideoEncoder {
    public private(set) var settings: VideoEncoderSettings
    /// The settings it was made with: an explicit maxrate and bufsize keep their proportion to
    /// this bitrate when the bitrate changes.
    private let configuredSettings: VideoEncoderSettings
    public var codec: VideoCodec { context.codec }
    /// The latest parameter sets seen in (or prepended to) the stream.
    public private(set) var parameterSets: ParameterSets

    private var context: EncoderContext
    private let packet: UnsafeMutablePointer<AVPacket>
    private let transformPool = FrameBufferPool(capacity: 4)
    private var keyFrameRequested = false
    private var lastPtsNanos: Int64?
    /// The rotation left for the receiver on what comes out: the latest input's when passed through.
    /// (Live encodes have no reordering and at most a frame or two of delay, and rotation changes
    /// are rare, so the latest input's rotation stands for the frames the encoder returns.)
    private var pendingRotation = VideoRotation.none
    /// Settings to reopen with before the next frame (a bitrate change the encoder cannot apply live).
    private var pendingReopen: VideoEncoderSettings?
    /// The watchdog for a wedged V4L2 M2M encoder: how long frames may go in with nothing coming
    /// out. (Software encoders are left alone: their lookahead can hold frames for long at low rates.)
    public var stallTimeoutNanos: Int64 = 3_000_000_000
    /// When the oldest frame still unanswered went in (nil while the encoder keeps up).
    private var unansweredSinceNanos: Int64?
    /// Times the watchdog reopened a wedged encoder.
    public private(set) var stallRestarts = 0
    /// Whether a frame came out since the watchdog last reopened the encoder.
    private var answeredSinceRestart = true
    /// Scales frames for this encoder and its siblings of the same size (nil: it scales alone).
    private let sharedScaler: SharedScaler?
    /// How the pictures it encoded reached it: as captured, turned, scaled.
    public private(set) var preparation = FramePreparationCounts()

    /// `sharedScaler`, when its size is this encoder's, scales the frames it needs scaled (once
    /// for every encoder sharing it); after a CPU-adaptation step to another size it scales alone.
    public init(settings: VideoEncoderSettings, sharedScaler: SharedScaler? = nil) throws(CodecError) {
        context = try EncoderContext(settings: settings)
        guard let packet = av_packet_alloc() else {
            throw .ffmpeg(FFmpegError(operation: "av_packet_alloc", code: lp_averror(ENOMEM)))
        }
        self.packet = packet
        self.settings = settings
        configuredSettings = settings
        self.sharedScaler = sharedScaler
        parameterSets = ParameterSets(codec: context.codec)
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&doomed)
    }

    /// Makes the next encoded frame an IDR (a new viewer, a PLI, a reconnect).
    public func requestKeyFrame() { keyFrameRequested = true }

    /// The V4L2 M2M node of a `*_v4l2m2m` encoder (`/dev/video11`), nil for other encoders.
    public var m2mDevicePath: String? { context.m2mDevice?.path }

    /// Turns the pixels from the next frame on instead of passing rotation through: a receiver
    /// that cannot apply rotation metadata joined the shared encode. That frame is an IDR (at the
    /// turned size for a quarter turn, see ``encode(_:emit:)``) and, like every later one, carries
    /// rotation `.none`; frames already returned keep theirs. There is no way back: that receiver
    /// may still be watching. Does nothing when the encoder already turns pixels.
    public func rotatePixels() {
        guard settings.rotation == .passThrough else { return }
        settings.rotation = .rotatePhysically
        pendingReopen?.rotation = .rotatePhysically  // a bitrate change waiting for the next frame must not undo it
        keyFrameRequested = true
    }

    /// Changes the target bitrate. Unset, maxrate and bufsize follow it; set explicitly, they keep
    /// their configured proportion to it (``VideoEncoderSettings/at(bitrate:proportionedLike:)``).
    ///
    /// libx264 reconfigures between frames without a keyframe; a V4L2 M2M encoder (h264_v4l2m2m)
    /// takes it through its node's bitrate control while it runs, also without a keyframe; other
    /// encoders are reopened before the next frame (after draining what the old one still holds)
    /// and that frame is an IDR.
    public func setBitrate(_ bitsPerSecond: Int) throws(CodecError) {
        let updated = settings.at(bitrate: bitsPerSecond, proportionedLike: configuredSettings)
        try updated.validate()
        if let pending = pendingReopen {
            // A reopen is due before the next frame anyway (a CPU-adaptation step, an earlier change):
            // it takes the new rate, and keeps the size and rate it was due for.
            pendingReopen = pending.at(bitrate: bitsPerSecond, proportionedLike: configuredSettings)
        } else if settings.encoderName == "libx264" {
            EncoderContext.applyRate(updated, to: context.pointer)
        } else if let device = context.m2mDevice {
            try device.setBitrate(bitsPerSecond)
            EncoderContext.applyRate(updated, to: context.pointer)
        } else {
            pendingReopen = updated
        }
        settings = updated
    }

    /// Moves the encode to another operating point (a CPU-adaptation step): from the next frame
    /// on, pictures are scaled to `width` × `height` (libyuv, as for any size mismatch) and the
    /// encoder, reopened with `framesPerSecond` for its rate control and GOP, starts with an IDR
    /// carrying the new SPS/PPS. The bitrate stays: fewer pixels get more bits each. A quarter-turned
    /// stream keeps its orientation (the new size is transposed the way the current one is).
    public func adapt(width: Int, height: Int, framesPerSecond: Int) throws(CodecError) {
        var updated = pendingReopen ?? settings
        let transposed = updated.rotation == .rotatePhysically && (updated.width < updated.height) != (width < height) && width != height
        (updated.width, updated.height) = transposed ? (height, width) : (width, height)
        updated.framesPerSecond = framesPerSecond
        try updated.validate()
        pendingReopen = updated
    }

    /// Encodes one frame; `emit` receives each access unit the encoder finishes (zero or more).
    ///
    /// With keyframes on request (``VideoEncoderSettings/KeyFrameCadence/requested``), an encoder that
    /// keys only by its own count (SVT-AV1) is reopened for a requested keyframe its count would not
    /// place there (after frames were dropped): its first frame is a keyframe, and its count starts anew.
    public func encode(_ frame: VideoFrame, emit: (EncodedVideoFrame) -> Void) throws(CodecError) {
        let countMissesRequest = context.framesSent % settings.keyframeIntervalFrames != 0
        if keyFrameRequested, settings.keyFrameCadence == .requested, !context.keysFramesOnRequest, countMissesRequest {
            pendingReopen = pendingReopen ?? settings
        }
        if let reopened = pendingReopen {
            try reopen(with: reopened, emit: emit)
        }
        let buffer = try prepare(frame, emit: emit)
        if buffer === frame.buffer { preparation.asCaptured += 1 }
        pendingRotation = settings.rotation == .passThrough ? frame.rotation : .none
        let avFrame: UnsafeMutablePointer<AVFrame>
        do throws(FFmpegError) { avFrame = try buffer.makeAVFrame() } catch { throw .ffmpeg(error) }
        defer {
            var doomed: UnsafeMutablePointer<AVFrame>? = avFrame
            av_frame_free(&doomed)
        }
        // Strictly increasing pts, as every encoder requires: a repeated capture time moves by 1 ns.
        var pts = frame.captureTimeNanos
        if let last = lastPtsNanos, pts <= last { pts = last + 1 }
        lastPtsNanos = pts
        avFrame.pointee.pts = pts
        if keyFrameRequested {
            keyFrameRequested = false
            if let device = context.m2mDevice {
                // Through the node's control rather than pict_type, whichever FFmpeg's wrapper does with it.
                try device.forceKeyFrame()
            } else {
                avFrame.pointee.pict_type = AV_PICTURE_TYPE_I
                lp_frame_set_key(avFrame)
            }
        }
        try send(avFrame)
        var produced = false
        try drain { produced = true; emit($0) }
        try watchStall(produced: produced)
    }

    /// The watchdog: frames went in for ``stallTimeoutNanos`` and nothing came out (a wedged hardware
    /// encoder stops returning its CAPTURE buffers), so the encoder is opened anew, without draining
    /// the old one (which would wait on it forever), and the next frame is an IDR. Outputs carry on:
    /// they only see a gap, then a keyframe.
    private func watchStall(produced: Bool) throws(CodecError) {
        guard context.m2mDevice != nil else { return }
        let now = MonotonicClock.nowNanos()
        if produced {
            unansweredSinceNanos = nil
            answeredSinceRestart = true
            return
        }
        guard let since = unansweredSinceNanos else {
            unansweredSinceNanos = now
            return
        }
        guard now - since >= stallTimeoutNanos else { return }
        unansweredSinceNanos = nil
        answeredSinceRestart = false
        stallRestarts += 1
        context = try EncoderContext(settings: settings)
        keyFrameRequested = true
    }

    /// Drains frames the encoder still holds (at the end of a stream). The encoder is done afterwards.
    /// A wedged V4L2 M2M encoder is not drained: FFmpeg waits for its last buffer without a timeout.
    public func flush(emit: (EncodedVideoFrame) -> Void) throws(CodecError) {
        if isWedged { return }
        try send(nil)
        try drain(emit)
    }

    /// A V4L2 M2M encoder that answered nothing for a second, or nothing since the watchdog reopened it.
    private var isWedged: Bool {
        guard context.m2mDevice != nil else { return false }
        if !answeredSinceRestart { return true }
        guard let since = unansweredSinceNanos else { return false }
        return MonotonicClock.nowNanos() - since > 1_000_000_000
    }

    /// Drains the old encoder into `emit`, then replaces it; the next frame is an IDR.
    private func reopen(with updated: VideoEncoderSettings, emit: (EncodedVideoFrame) -> Void) throws(CodecError) {
        pendingReopen = nil
        try flush(emit: emit)
        context = try EncoderContext(settings: updated)
        if updated.width != settings.width || updated.height != settings.height {
            // The old size's parameter sets must not be put in front of the new size's IDR.
            parameterSets = ParameterSets(codec: context.codec)
        }
        settings = updated
        keyFrameRequested = true
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws(CodecError) {
        let result = avcodec_send_frame(context.pointer, frame)
        guard result >= 0 || result == lp_averror_eof() else {
            throw .ffmpeg(FFmpegError(operation: "avcodec_send_frame", code: result))
        }
        if frame != nil, result >= 0 { context.framesSent += 1 }
    }

    private func drain(_ emit: (EncodedVideoFrame) -> Void) throws(CodecError) {
        while true {
            let result = avcodec_receive_packet(context.pointer, packet)
            if result == lp_averror_eagain() || result == lp_averror_eof() { return }
            guard result >= 0 else { throw .ffmpeg(FFmpegError(operation: "avcodec_receive_packet", code: result)) }
            defer { av_packet_unref(packet) }
            emit(makeEncodedFrame(from: packet.pointee))
        }
    }

    /// Copies the packet out once, finds its NAL units, keeps the parameter sets (AV1: the sequence
    /// header) current and puts them in front of an H.264/H.265 keyframe that arrived without them
    /// (some hardware encoders send them once).
    private func makeEncodedFrame(from packet: AVPacket) -> EncodedVideoFrame {
        var data = packet.data.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(packet.size))) } ?? []
        let codec = context.codec
        var ranges = codec.usesNALUnits ? AnnexB.nalUnitRanges(in: data) : [0..<data.count]
        var isKeyFrame = packet.flags & AV_PKT_FLAG_KEY != 0
        if codec.usesNALUnits {
            isKeyFrame = ranges.contains { codec.isIDR(nalUnitType: codec.nalUnitType(firstByte: data[$0.lowerBound])) }
            let found = ParameterSets(codec: codec, annexB: data, nalUnitRanges: ranges)
            if found.isComplete {
                if found != parameterSets { parameterSets = found }
            } else if isKeyFrame, parameterSets.isComplete {
                data = parameterSets.annexB + data
                ranges = AnnexB.nalUnitRanges(in: data)
            }
        } else if let found = try? ParameterSets(av1TemporalUnit: data), found.isComplete, found != parameterSets {
            // A temporal unit the OBU parser refuses keeps the last sequence header: the sequence
            // header's own consumers (RTMP's av1C) then report what is missing.
            parameterSets = found
        }
        return EncodedVideoFrame(codec: codec, data: data, nalUnitRanges: ranges, ptsNanos: packet.pts,
                                 dtsNanos: packet.dts, isKeyFrame: isKeyFrame, parameterSets: parameterSets, rotation: pendingRotation)
    }

    /// Applies rotation (when the output cannot carry it) and the configured size.
    private func prepare(_ frame: VideoFrame, emit: (EncodedVideoFrame) -> Void) throws(CodecError) -> I420Buffer {
        var buffer = frame.buffer
        if frame.rotation != .none, settings.rotation == .rotatePhysically {
            let size = frame.displaySize
            buffer = try transformed(width: size.width, height: size.height) { [buffer] target throws(MediaError) in
                try buffer.rotate(by: frame.rotation, into: target)
            }
            preparation.rotated += 1
        }
        guard buffer.width != settings.width || buffer.height != settings.height else { return buffer }
        // A quarter turn (or its undoing) transposes the picture: follow it rather than squeeze a
        // portrait picture into a landscape size (the encoder reopens once, with an IDR). A
        // rendition smaller than the capture then scales to its own size turned the same way.
        if settings.rotation == .rotatePhysically, (buffer.width < buffer.height) != (settings.width < settings.height),
           buffer.width != buffer.height, settings.width != settings.height {
            var transposed = settings
            (transposed.width, transposed.height) = (settings.height, settings.width)
            try reopen(with: transposed, emit: emit)
            parameterSets = ParameterSets(codec: context.codec)
            if buffer.width == settings.width, buffer.height == settings.height { return buffer }
        }
        switch settings.sizeChange {
        case .scale:
            if buffer === frame.buffer, let shared = sharedScaler, shared.width == settings.width, shared.height == settings.height {
                do throws(MediaError) {
                    let (scaled, scaledHere) = try shared.scaled(frame)
                    if scaledHere { preparation.scaled += 1 } else { preparation.scaledBySibling += 1 }
                    return scaled
                } catch {
                    throw .media(error)
                }
            }
            preparation.scaled += 1
            return try transformed(width: settings.width, height: settings.height) { [buffer] target throws(MediaError) in
                try buffer.scale(into: target)
            }
        case .reopen:
            var resized = settings
            resized.width = buffer.width
            resized.height = buffer.height
            try reopen(with: resized, emit: emit)
            parameterSets = ParameterSets(codec: context.codec)
            return buffer
        }
    }

    /// Runs a libyuv transform into a pooled buffer of the given size.
    private func transformed(width: Int, height: Int,
                             _ transform: (I420Buffer) throws(MediaError) -> Void) throws(CodecError) -> I420Buffer {
        do throws(MediaError) {
            guard let target = try transformPool.makeBuffer(width: width, height: height) else {
                throw MediaError.poolExhausted(capacity: transformPool.capacity)
            }
            try transform(target)
            return target
        } catch {
            throw .media(error)
        }
    }
}
