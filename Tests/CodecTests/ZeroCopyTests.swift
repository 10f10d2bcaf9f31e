import CFFmpeg
import LibAV
import MediaCore
import Testing

/// The AVFrame handed to libavcodec points at the pooled planes and keeps the buffer alive.
@Suite struct ZeroCopyTests {
    @Test func avFrameBorrowsThePooledPlanesUntilFreed() throws {
        let pool = FrameBufferPool(capacity: 1)
        var frame: UnsafeMutablePointer<AVFrame>?
        do {
            let buffer = try #require(try pool.makeBuffer(width: 64, height: 48))
            frame = try buffer.makeAVFrame()
            #expect(frame?.pointee.data.0 == buffer.dataY)
            #expect(frame?.pointee.data.2 == buffer.dataV)
            #expect(frame?.pointee.linesize.1 == Int32(buffer.strideU))
        }
        // Our reference is gone; libavcodec's keeps the buffer out of the pool.
        #expect(pool.usage.inUse == 1)
        #expect(try pool.makeBuffer(width: 64, height: 48) == nil)
        av_frame_free(&frame)
        #expect(pool.usage.inUse == 0)
        #expect(try pool.makeBuffer(width: 64, height: 48) != nil)
    }
}
