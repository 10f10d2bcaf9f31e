import Foundation
import CFFmpeg
import LibAV
import MediaCore

/// Plays a video file as a live source: decoded with libavformat/libavcodec, converted to I420,
/// paced at the file's own timestamps on the monotonic clock, optionally looping.
///
/// Capture timestamps are "now" when each frame is due, so a looped file keeps monotonic time.
/// With ``CaptureConfig/fileRunAhead`` it delivers in bursts instead, from the first frame on: once
/// a frame is due, every frame due within the run-ahead comes at once, stamped with when it is
/// due, and at the file's end it waits for the last one's time, so the run still lasts as long as
/// the file.
public final class FileSource: FrameSource, @unchecked Sendable {
    public let path: String
    public let loops: Bool
    public var name: String { "file:\(path)" }
    private var decoder: VideoFileDecoder?
    private var startNanos: Int64 = 0
    /// Stream time already played by earlier loops.
    private var loopOffsetNanos: Int64 = 0
    private var lastPtsNanos: Int64 = 0
    private var frameNumber: UInt64 = 0
    private var rotation = VideoRotation.none
    /// When the picture the decoder holds is due.
    private var pendingDueNanos: Int64?
    private var runAheadNanos: Int64 = 0
    /// Frames due up to then go without waiting (a burst, with ``CaptureConfig/fileRunAhead``).
    private var burstEndNanos: Int64 = 0
    /// When the last frame delivered is due: a burst's end of the file waits for it.
    private var lastDueNanos: Int64 = 0

    public init(path: String, loops: Bool = false) {
        self.path = path
        self.loops = loops
    }

    public func open(config: CaptureConfig) throws(CaptureError) -> CaptureFormat {
        guard isAllowedURL(protocols: config.fileProtocols) || FileManager.default.fileExists(atPath: path) else {
            throw .fileNotFound(path: path)
        }
        let decoder: VideoFileDecoder
        do { decoder = try VideoFileDecoder(path: path, protocols: config.fileProtocols) } catch {
            throw error.code == lp_averror_stream_not_found() ? .noVideoStream(path: path) : .fileUnreadable(path: path, reason: error.message)
        }
        self.decoder = decoder
        rotation = config.rotation
        runAheadNanos = max(0, Int64(config.fileRunAhead / .nanoseconds(1)))
        startNanos = MonotonicClock.nowNanos()
        burstEndNanos = 0
        lastDueNanos = startNanos
        loopOffsetNanos = 0
        lastPtsNanos = 0
        frameNumber = 0
        pendingDueNanos = nil
        return CaptureFormat(size: VideoSize(width: decoder.width, height: decoder.height),
                             framesPerSecond: decoder.framesPerSecond, pixelFormat: .i420)
    }

    /// Whether the path is a URL whose scheme the config allows (`https://…` with `https` in
    /// `source_protocols`): such a path is no local file to look for; libavformat opens it.
    private func isAllowedURL(protocols: [String]) -> Bool {
        guard let range = path.range(of: "://") else { return false }
        return protocols.contains(path[..<range.lowerBound].lowercased())
    }

    public var runsAheadOfClock: Bool { runAheadNanos > 0 }

    public func read(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput {
        guard let decoder else { return .endOfStream }
        if pendingDueNanos == nil, let output = try decodeNext(decoder) {
            if case .endOfStream = output, runsAheadOfClock, !Pacing.sleep(until: lastDueNanos) { return .idle }
            return output
        }
        guard let due = pendingDueNanos else { return .idle }
        if due > burstEndNanos {
            guard Pacing.sleep(until: due) else { return .idle }
            // A burst: the frames due up to one run-ahead after this one go without waiting (with
            // no run-ahead, none do: every frame is paced).
            burstEndNanos = due + runAheadNanos
        }
        pendingDueNanos = nil
        lastDueNanos = due
        defer { frameNumber += 1 }
        // Converted now, not when decoded: the previous frame's buffer is back in the pool by then.
        let taken: I420Buffer?
        do { taken = try decoder.takePicture(pool: pool) } catch { throw .decodeFailed(path: path, reason: error.description) }
        guard let buffer = taken else { return .dropped(count: 1) }
        let captured = runsAheadOfClock ? due : MonotonicClock.nowNanos()
        return .frame(VideoFrame(buffer: buffer, rotation: rotation, captureTimeNanos: captured, frameNumber: frameNumber))
    }

    /// Decodes the next picture, held by the decoder until it is due (`pendingDueNanos`); returns
    /// an output to hand back at once (the end, a loop's restart) or nil.
    private func decodeNext(_ decoder: VideoFileDecoder) throws(CaptureError) -> SourceOutput? {
        do {
            if let ptsNanos = try decoder.decodeNextPicture() {
                lastPtsNanos = ptsNanos
                pendingDueNanos = startNanos + loopOffsetNanos + ptsNanos
                return nil
            }
            guard loops, frameNumber > 0 else { return .endOfStream }
            loopOffsetNanos += lastPtsNanos + Int64(1_000_000_000 / decoder.framesPerSecond)
            try decoder.rewind()
            return .idle
        } catch {
            throw .decodeFailed(path: path, reason: error.description)
        }
    }

    public func close() { decoder = nil; pendingDueNanos = nil }
}
