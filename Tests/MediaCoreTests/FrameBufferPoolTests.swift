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
