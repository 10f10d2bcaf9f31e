import CFFmpeg
import MediaCore

extension I420Buffer {
    /// Wraps this buffer's planes in a new `AVFrame` (yuv420p) without copying a pixel.
    ///
    /// `buf[0]` is an `AVBufferRef` over the buffer's one allocation whose free callback releases a
    /// reference to this buffer taken here, so the pixels stay alive exactly as long as libavcodec
    /// holds the frame; only then can a ``FrameBufferPool`` hand the buffer out again. The buffer
    /// reference is read-only, so an encoder that wanted to write would copy instead of scribbling
    /// on a frame other consumers still read. The caller frees the frame with `av_frame_free`.
    public func makeAVFrame() throws(FFmpegError) -> UnsafeMutablePointer<AVFrame> {
        guard let frame = av_frame_alloc() else { throw FFmpegError(operation: "av_frame_alloc", code: lp_averror(ENOMEM)) }
        let owner = Unmanaged.passRetained(self)
        let data = dataY
        guard let buffer = av_buffer_create(data, allocationSize, { opaque, _ in
            guard let opaque else { return }
            Unmanaged<I420Buffer>.fromOpaque(opaque).release()
        }, owner.toOpaque(), Int32(AV_BUFFER_FLAG_READONLY)) else {
            owner.release()
            var doomed: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&doomed)
            throw FFmpegError(operation: "av_buffer_create", code: lp_averror(ENOMEM))
        }
        frame.pointee.buf.0 = buffer
        frame.pointee.data.0 = dataY
        frame.pointee.data.1 = dataU
        frame.pointee.data.2 = dataV
        frame.pointee.linesize.0 = Int32(strideY)
        frame.pointee.linesize.1 = Int32(strideU)
        frame.pointee.linesize.2 = Int32(strideV)
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        return frame
    }
}
