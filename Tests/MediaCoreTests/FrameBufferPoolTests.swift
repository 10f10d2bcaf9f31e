import MediaCore
import Testing

@Suite struct FrameBufferPoolTests {
    @Test func reusesABufferOnceReleased() throws {
        let pool = FrameBufferPool(capacity: 2)
        var first: I420Buffer? = try pool.makeBuffer(width: 64, height: 48)
        let firstAddress = first.map { ObjectIdentifier($0) }
        first = nil
        let again = try #require(try pool.makeBuffer(width: 64, height: 48))
        #expect(ObjectIdentifier(again) == firstAddress)
        #expect(pool.usage.allocated == 1)
    }

    @Test func returnsNilWhenEveryBufferIsHeld() throws {
        let pool = FrameBufferPool(capacity: 3)
        let held = try (0..<3).map { _ in try #require(try pool.makeBuffer(width: 32, height: 32)) }
        #expect(try pool.makeBuffer(width: 32, height: 32) == nil)
        #expect(pool.usage.inUse == held.count)
    }

    @Test func sizeChangeReleasesOldBuffers() throws {
        let pool = FrameBufferPool(capacity: 2)
        _ = try pool.makeBuffer(width: 32, height: 32)
        let resized = try #require(try pool.makeBuffer(width: 64, height: 32))
        #expect(resized.width == 64)
        #expect(pool.usage.allocated == 1)
    }

    @Test func frameSharesItsBufferAcrossCopies() throws {
        let pool = FrameBufferPool(capacity: 1)
        let buffer = try #require(try pool.makeBuffer(width: 32, height: 32))
        let frame = VideoFrame(buffer: buffer, rotation: .clockwise90, captureTimeNanos: 5)
        let copy = frame
        #expect(copy.buffer === frame.buffer)
        #expect(frame.displaySize == (32, 32))
        #expect(try pool.makeBuffer(width: 32, height: 32) == nil)
    }

    @Test func stridesAreAlignedAndCoverTheRow() throws {
        let buffer = try I420Buffer(width: 33, height: 17)
        #expect(buffer.strideY % I420Buffer.rowAlignment == 0 && buffer.strideY >= 33)
        #expect(buffer.strideU >= 17 && buffer.chromaHeight == 9)
        #expect(buffer.packedBytes().count == 33 * 17 + 2 * 17 * 9)
    }
}

@Suite struct FrameBufferPoolTrimTests {
    /// Three buffers after a burst; then one frame at a time (the steady state) for longer than the
    /// idle limit: the two extra buffers go, the one in use stays, and no new buffer is made.
    @Test func releasesBuffersLeftIdleAfterABurst() throws {
        let pool = FrameBufferPool(capacity: 4, idleRequestLimit: 10)
        let burst = try (0..<3).map { _ in try #require(try pool.makeBuffer(width: 32, height: 32)) }
        let steady = ObjectIdentifier(burst[0])
        _ = consume burst
        #expect(pool.usage.allocated == 3)
        var handedOut: Set<ObjectIdentifier> = []
        for _ in 0..<30 {
            let buffer = try #require(try pool.makeBuffer(width: 32, height: 32))
            handedOut.insert(ObjectIdentifier(buffer))
        }
        #expect(handedOut == [steady])
        #expect(pool.usage.allocated == 1)
    }

    /// A buffer still held by a consumer is never released, however long since it was handed out.
    @Test func keepsBuffersThatAreHeld() throws {
        let pool = FrameBufferPool(capacity: 3, idleRequestLimit: 5)
        let first = try #require(try pool.makeBuffer(width: 32, height: 32))
        let held = try #require(try pool.makeBuffer(width: 32, height: 32))
        _ = consume first
        for _ in 0..<20 { _ = try #require(try pool.makeBuffer(width: 32, height: 32)) }
        #expect(pool.usage.allocated == 2)
        #expect(pool.usage.inUse == 1)
        #expect(held.width == 32)
    }

    /// Below the idle limit the pool keeps what it made: a burst that recurs finds its buffers.
    @Test func keepsBuffersWithinTheIdleLimit() throws {
        let pool = FrameBufferPool(capacity: 3, idleRequestLimit: 50)
        _ = try (0..<3).map { _ in try #require(try pool.makeBuffer(width: 32, height: 32)) }
        for _ in 0..<40 { _ = try #require(try pool.makeBuffer(width: 32, height: 32)) }
        #expect(pool.usage.allocated == 3)
    }
}
