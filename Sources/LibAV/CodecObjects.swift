import CFFmpeg

/// The objects a libavcodec user holds: a codec context and the frame and packet it works through.
///
/// FFmpeg's free functions each take the address of a pointer, so freeing three of them from
/// `let` properties takes three temporaries; this is that teardown, written once for every
/// decoder, encoder and image writer (nil is allowed for each, as FFmpeg allows).
public enum CodecObjects {
    public static func free(context: UnsafeMutablePointer<AVCodecContext>?, frame: UnsafeMutablePointer<AVFrame>? = nil,
                            packet: UnsafeMutablePointer<AVPacket>? = nil) {
        var context = context, frame = frame, packet = packet
        avcodec_free_context(&context)
        av_frame_free(&frame)
        av_packet_free(&packet)
    }
}
