import ArgumentParser
import Foundation
import Pipeline
import RTPOutput
import SRTP

/// `--rtp`, `--sdp` and `--srtp-key`: plain RTP/SRTP out for media servers and tools (ffplay with
/// the SDP, GStreamer, VLC, Janus's streaming plugin).
struct RTPOptions: ParsableArguments {
    @Option(help: "Send H.264 over RTP to rtp://HOST:PORT (RTCP on PORT+1, feedback answered on the sending socket); with --audio, Opus to PORT+2 (RTCP PORT+3).")
    var rtp: String?

    @Option(help: "With --rtp: write the SDP describing the stream to this file once the encoder's first frame is out (also printed), for ffplay/ffmpeg/VLC.")
    var sdp: String?

    @Option(help: "With --rtp: protect it with SRTP AES_CM_128_HMAC_SHA1_80; base64 of the 30-byte key and salt, or 'generate' (the key is then in the SDP).")
    var srtpKey: String?

    /// The RTP output these options ask for, or nil without `--rtp`.
    func makeOutput() throws -> (any StreamOutput)? {
        guard let rtp else {
            if sdp != nil || srtpKey != nil { throw ValidationError("--sdp and --srtp-key describe an RTP stream: add --rtp rtp://HOST:PORT") }
            return nil
        }
        let keyingMaterial = try srtpKey.map { $0 == "generate" ? SRTPKeyingMaterial.random() : try SRTPKeyingMaterial(base64: $0) }
        let configuration = RTPOutputConfiguration(destination: try RTPDestination(url: rtp), keyingMaterial: keyingMaterial)
        let path = sdp
        return try RTPStreamOutput(configuration: configuration) { description in
            let text = description.text
            // Unbuffered: a reader of our stdout sees the SDP now, not at exit.
            FileHandle.standardOutput.write(Data("livepush: SDP for \(rtp)\(path.map { " (written to \($0))" } ?? ""):\n\(text)".utf8))
            if let path {
                do {
                    try text.write(toFile: path, atomically: true, encoding: .utf8)
                } catch {
                    FileHandle.standardError.write(Data("livepush: cannot write the SDP to \(path): \(error)\n".utf8))
                }
            }
        }
    }
}
