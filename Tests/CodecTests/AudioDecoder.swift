import Capture
import MediaCore
import CFFmpeg
import LibAV
@testable import Codec

/// Decodes AAC/Opus packets back to the first channel's samples as Float, for checking duration and pitch.
final class AudioDecoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private(set) var samples = [Float]()

    struct Failure: Error { var description: String }

    init(codec: AudioCodec, extradata: [UInt8], format: AudioFormat) throws {
        guard let decoder = avcodec_find_decoder(codec == .aac ? AV_CODEC_ID_AAC : AV_CODEC_ID_OPUS),
              let context = avcodec_alloc_context3(decoder), let packet = av_packet_alloc(), let frame = av_frame_alloc() else {
            throw Failure(description: "no \(codec) decoder")
        }
        context.pointee.sample_rate = Int32(format.sampleRate)
        av_channel_layout_default(&context.pointee.ch_layout, Int32(format.channels))
        let padded = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self)
        padded?.update(from: extradata, count: extradata.count)
        context.pointee.extradata = padded
        context.pointee.extradata_size = Int32(extradata.count)
        try FFmpegError.check(avcodec_open2(context, decoder, nil), "open \(codec) decoder")
        self.context = context
        self.packet = packet
        self.frame = frame
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    func decode(_ encoded: EncodedAudioFrame) throws {
        try FFmpegError.check(av_new_packet(packet, Int32(encoded.data.count)), "av_new_packet")
        packet.pointee.data.update(from: encoded.data, count: encoded.data.count)
        defer { av_packet_unref(packet) }
        try FFmpegError.check(avcodec_send_packet(context, packet), "avcodec_send_packet")
        try receive()
    }

    func flush() throws {
        _ = avcodec_send_packet(context, nil)
        try receive()
    }

    private func receive() throws {
        while true {
            let result = avcodec_receive_frame(context, frame)
            if result == lp_averror_eagain() || result == lp_averror_eof() { return }
            try FFmpegError.check(result, "avcodec_receive_frame")
            defer { av_frame_unref(frame) }
            let count = Int(frame.pointee.nb_samples), channels = Int(frame.pointee.ch_layout.nb_channels)
            guard let data = frame.pointee.data.0 else { continue }
            switch AVSampleFormat(rawValue: frame.pointee.format) {
            case AV_SAMPLE_FMT_FLTP:
                data.withMemoryRebound(to: Float.self, capacity: count) { samples += UnsafeBufferPointer(start: $0, count: count) }
            case AV_SAMPLE_FMT_FLT:
                data.withMemoryRebound(to: Float.self, capacity: count * channels) { p in
                    for index in 0..<count { samples.append(p[index * channels]) }
                }
            case AV_SAMPLE_FMT_S16:
                data.withMemoryRebound(to: Int16.self, capacity: count * channels) { p in
                    for index in 0..<count { samples.append(Float(p[index * channels]) / 32_768) }
                }
            default:
                throw Failure(description: "decoder produced sample format \(frame.pointee.format)")
            }
        }
    }
}
