import Capture
import MediaCore
import Synchronization
import Testing

/// An unplugged camera becomes the "no signal" card at the configured rate, and the camera's
/// frames come back when it can be opened again.
@Suite struct ResilientSourceTests {
    /// A camera stand-in: delivers grey frames, then "unplugs" (a recoverable error) until `plugged` is set again.
    final class UnpluggableSource: FrameSource, @unchecked Sendable {
        let name = "/dev/video-test"
        let plugged = Mutex(true)
        private var size = VideoSize(width: 320, height: 240)

        func open(config: CaptureConfig) throws(CaptureError) -> CaptureFormat {
            guard plugged.withLock({ $0 }) else { throw .deviceNotFound(path: name) }
            size = config.size
            return CaptureFormat(size: size, framesPerSecond: config.framesPerSecond, pixelFormat: .i420)
        }

        func read(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput {
            guard plugged.withLock({ $0 }) else { throw .deviceUnplugged(path: name) }
            guard let buffer = try? pool.makeBuffer(width: size.width, height: size.height) else { return .dropped(count: 1) }
            buffer.fillRect(x: 0, y: 0, width: size.width, height: size.height, color: YUVColor(y: 128, u: 128, v: 128))
            return .frame(VideoFrame(buffer: buffer, captureTimeNanos: MonotonicClock.nowNanos()))
        }

        func close() {}
        func isRecoverable(_ error: CaptureError) -> Bool { error == .deviceUnplugged(path: name) }
    }

    /// Reads until a frame comes (bounded), returning its centre luma and its band-centre luma.
    static func nextFrame(_ source: ResilientSource, pool: FrameBufferPool) throws -> VideoFrame? {
        for _ in 0..<100 {
            if case let .frame(frame) = try source.read(pool: pool) { return frame }
        }
        return nil
    }

    static func luma(_ frame: VideoFrame, x: Int, y: Int) -> UInt8 { frame.buffer.dataY[y * frame.buffer.strideY + x] }

    @Test func unplugShowsTheCardAndReplugResumes() throws {
        let camera = UnpluggableSource()
        let source = ResilientSource(camera, reopen: Backoff(initialDelaySeconds: 0.2, maximumDelaySeconds: 0.2))
        let pool = FrameBufferPool(capacity: 4)
        _ = try source.open(config: CaptureConfig(size: VideoSize(width: 320, height: 240), framesPerSecond: 30))
        let live = try #require(try Self.nextFrame(source, pool: pool))
        #expect(Self.luma(live, x: 160, y: 120) == 128)

        camera.plugged.withLock { $0 = false }
        let card = try #require(try Self.nextFrame(source, pool: pool))
        #expect(source.isShowingPlaceholder)
        #expect(card.width == 320 && card.height == 240)
        #expect(Self.luma(card, x: 4, y: 4) == 40, "slate background")
        #expect(Self.luma(card, x: 2, y: 240 / 2 - 240 / 8) == 81, "red NO SIGNAL band")
        var cards = 1
        let started = MonotonicClock.nowNanos()
        while MonotonicClock.nowNanos() - started < 500_000_000 {
            if case .frame = try source.read(pool: pool) { cards += 1 }
        }
        #expect((10...20).contains(cards), "about 30 cards per second, got \(cards) in 0.5 s")

        camera.plugged.withLock { $0 = true }
        var resumed: VideoFrame?
        for _ in 0..<50 where resumed == nil {
            if let frame = try Self.nextFrame(source, pool: pool), Self.luma(frame, x: 160, y: 120) == 128, !source.isShowingPlaceholder { resumed = frame }
        }
        #expect(resumed != nil, "camera frames resume after replug")
    }

    @Test func missingCameraAtStartShowsTheCard() throws {
        let camera = UnpluggableSource()
        camera.plugged.withLock { $0 = false }
        let source = ResilientSource(camera)
        let format = try source.open(config: CaptureConfig(size: VideoSize(width: 320, height: 240), framesPerSecond: 15))
        #expect(format.notes.first?.hasPrefix("no signal") == true)
        #expect(try Self.nextFrame(source, pool: FrameBufferPool(capacity: 2)) != nil)
    }

    /// Reads until `match` holds of an output (bounded); the outputs read on the way.
    static func read(_ source: ResilientSource, pool: FrameBufferPool, until match: (SourceOutput) -> Bool) throws -> [SourceOutput] {
        var seen: [SourceOutput] = []
        let deadline = MonotonicClock.nowNanos() + 3_000_000_000
        while MonotonicClock.nowNanos() < deadline {
            let output = try source.read(pool: pool)
            seen.append(output)
            if match(output) { return seen }
        }
        Issue.record("no matching read within 3 s")
        return seen
    }

    static func event(_ output: SourceOutput) -> CaptureEvent? {
        if case let .event(event) = output { return event }
        return nil
    }

    @Test func lossAndReturnAreReportedAsEvents() throws {
        let camera = UnpluggableSource()
        let source = ResilientSource(camera, reopen: Backoff(initialDelaySeconds: 0.1, maximumDelaySeconds: 0.1))
        let pool = FrameBufferPool(capacity: 4)
        _ = try source.open(config: CaptureConfig(size: VideoSize(width: 320, height: 240), framesPerSecond: 30))
        #expect(try Self.nextFrame(source, pool: pool) != nil)
        camera.plugged.withLock { $0 = false }
        let lost = try source.read(pool: pool)
        #expect(Self.event(lost) == .error(.deviceUnplugged(path: camera.name)), "the unplug is the read right after it")
        #expect(source.isShowingPlaceholder)
        camera.plugged.withLock { $0 = true }
        let reads = try Self.read(source, pool: pool) { Self.event($0) != nil }
        guard case let .started(format)? = reads.last.flatMap(Self.event) else {
            Issue.record("no started event after the replug: \(reads.count) reads")
            return
        }
        #expect(format.size == VideoSize(width: 320, height: 240) && format.notes.isEmpty)
        #expect(!source.isShowingPlaceholder)
    }

    @Test func missingCameraAtStartIsReportedByTheFirstRead() throws {
        let camera = UnpluggableSource()
        camera.plugged.withLock { $0 = false }
        let source = ResilientSource(camera)
        _ = try source.open(config: CaptureConfig(size: VideoSize(width: 320, height: 240), framesPerSecond: 15))
        #expect(Self.event(try source.read(pool: FrameBufferPool(capacity: 2))) == .error(.deviceNotFound(path: camera.name)))
    }

    @Test func failShowsNoCard() throws {
        let camera = UnpluggableSource()
        camera.plugged.withLock { $0 = false }
        let source = ResilientSource(camera, noSignal: .fail)
        let config = CaptureConfig(size: VideoSize(width: 320, height: 240), framesPerSecond: 15)
        #expect(throws: CaptureError.deviceNotFound(path: camera.name)) { try source.open(config: config) }
        camera.plugged.withLock { $0 = true }
        _ = try source.open(config: config)
        let pool = FrameBufferPool(capacity: 2)
        #expect(try Self.nextFrame(source, pool: pool) != nil)
        camera.plugged.withLock { $0 = false }
        #expect(throws: CaptureError.deviceUnplugged(path: camera.name)) { try source.read(pool: pool) }
        #expect(!source.isShowingPlaceholder)
    }
}
