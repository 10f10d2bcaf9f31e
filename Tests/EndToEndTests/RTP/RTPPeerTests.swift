import Foundation
import MediaCore
import Testing
import TestSupport

/// livepush's RTP output received by independent, real receivers on 127.0.0.1.
@Suite(.serialized, .timeLimit(.minutes(2))) struct RTPPeerTests {
    /// GStreamer's depayloader and libav decoder take the stream: the decoder's caps show the size
    /// and the sink counts rendered frames.
    @Test func gstreamerDecodes() throws {
        let port = try LoopbackUDPSocket.freePortPair()
        let gstreamer = try BackgroundProcess("timeout", [
            "-k", "2", "40", "gst-launch-1.0", "-e", "-v",
            "udpsrc", "address=127.0.0.1", "port=\(port)",
            "caps=application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96",
            "!", "rtpjitterbuffer", "latency=50", "!", "rtph264depay", "!", "h264parse", "!", "avdec_h264",
            "!", "identity", "eos-after=90", "!", "fpsdisplaysink", "video-sink=fakesink", "text-overlay=false", "sync=false",
        ])
        Thread.sleep(forTimeInterval: 1)
        let stream = try LivepushRTPStream(port: port)
        let status = gstreamer.wait(timeoutSeconds: 40)
        stream.process.kill(signal: SIGTERM)
        let output = gstreamer.output
        #expect(status == 0, "gst-launch: \(gstreamer.errorOutput.suffix(1000)) \(output.suffix(1000))")
        #expect(output.contains("avdec_h264-0.GstPad:src: caps = video/x-raw, format=(string)I420, width=(int)640, height=(int)360"),
                "decoder caps: \(output.suffix(2000))")
        // identity eos-after=90 ends the pipeline after 90 decoded frames (status 0 above); fpsdisplaysink
        // prints its count every 0.5 s, so the last figure it printed may trail that by a few frames.
        let rendered = output.matches(of: /rendered: (\d+)/).compactMap { Int($0.output.1) }.max() ?? 0
        #expect(rendered >= 60, "rendered \(rendered) frames")
    }

    /// ffmpeg takes the generated SDP file and decodes; the burned-in frame codes come back in order.
    @Test(arguments: [false, true]) func ffmpegDecodesWithTheSDP(srtp: Bool) throws {
        let directory = try TemporaryDirectory()
        let port = try LoopbackUDPSocket.freePortPair()
        let sdpPath = directory.file("stream.sdp")
        let stream = try LivepushRTPStream(port: port, arguments: ["--sdp", sdpPath] + (srtp ? ["--srtp-key", "generate"] : []))
        let sdp = try #require(stream.waitForSessionDescription(at: sdpPath), "no SDP: \(stream.process.output) \(stream.process.errorOutput)")
        #expect(sdp.contains("a=fmtp:96 packetization-mode=1;profile-level-id=64") && sdp.contains("sprop-parameter-sets="))
        #expect(sdp.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:") == srtp)
        #expect(stream.process.output.contains("m=video \(port) RTP/"), "the SDP is printed too")
        let frames = 60
        try ExternalTool.run("ffmpeg", [
            "-hide_banner", "-nostdin", "-v", "error", "-protocol_whitelist", "file,udp,rtp,srtp",
            "-i", sdpPath, "-frames:v", "\(frames)", "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-y", directory.file("out.yuv"),
        ], timeoutSeconds: 40)
        stream.process.kill(signal: SIGTERM)
        let codes = LivepushRTPStream.frameCodes(ofRawI420: try FFmpegCLI.bytes(of: directory.file("out.yuv")))
        #expect(codes.count == frames)
        let numbers = codes.compactMap { $0?.frameNumber }
        #expect(numbers.count == frames, "every decoded frame carries its code")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "in capture order: \(numbers)")
        #expect(stream.process.wait(timeoutSeconds: 10) == 0, "clean stop: \(stream.process.errorOutput)")
    }
}
