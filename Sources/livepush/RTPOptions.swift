import ArgumentParser
import Config

/// `--rtp`, `--sdp` and `--srtp-key`: plain RTP/SRTP out for media servers and tools (ffplay with
/// the SDP, GStreamer, VLC, Janus's streaming plugin).
struct RTPOptions: ParsableArguments {
    static let keyEnvironmentVariable = "LIVEPUSH_SRTP_KEY"
    /// Keys of the `rtp` output a `--rtp` URL's query may carry (written through, for the config
    /// parser to check): the RTCP return port, the stall timeout and the payload type.
    static let queryKeys = ["local_port", "stall_timeout", "payload_type"]

    @Option(help: "Send H.264 over RTP to rtp://HOST:PORT (RTCP on PORT+1, feedback answered on the sending socket); with --audio, Opus to PORT+2 (RTCP PORT+3). ?local_port=N sends from port N (where receivers send RTCP back), ?stall_timeout=5s judges the receiver's RTCP receiver reports, ?payload_type=N sets the video's RTP payload type (\(OutputDefaults.rtpPayloadTypeRange.lowerBound)…\(OutputDefaults.rtpPayloadTypeRange.upperBound), default \(OutputDefaults.rtpPayloadType)).")
    var rtp: String?

    @Option(help: "With --rtp: write the SDP describing the stream to this file once the encoder's first frame is out (also printed), for ffplay/ffmpeg/VLC.")
    var sdp: String?

    @Option(help: "With --rtp: protect it with SRTP AES_CM_128_HMAC_SHA1_80; base64 of the 30-byte key and salt, or 'generate' (the key is then in the SDP).")
    var srtpKey: String?

    /// The `rtp:` output these options ask for, or nil without `--rtp`.
    func output(into draft: inout ConfigDraft) throws -> ConfigDraft.Mapping? {
        guard let rtp else {
            if sdp != nil || srtpKey != nil { throw ValidationError("--sdp and --srtp-key describe an RTP stream: add --rtp rtp://HOST:PORT") }
            return nil
        }
        let parts = rtp.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let address = String(parts[0].dropFirst("rtp://".count))
        guard rtp.hasPrefix("rtp://"), ListenAddress(parsing: address) != nil else {
            throw ValidationError("--rtp wants rtp://HOST:PORT, e.g. rtp://127.0.0.1:5004 (got '\(rtp)')")
        }
        var mapping = ConfigDraft.Mapping()
        mapping.set("destination", address)
        for option in parts.dropFirst().first?.split(separator: "&") ?? [] {
            let pair = option.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, Self.queryKeys.contains(String(pair[0])) else {
                throw ValidationError("--rtp: unknown option '\(option)' (rtp:// takes \(Self.queryKeys.map { "\($0)=…" }.joined(separator: " and ")))")
            }
            mapping.set(String(pair[0]), String(pair[1]))
        }
        mapping.set("srtp_key", srtpKey.map { $0 == ConfigParser.generatedSRTPKey ? $0 : draft.secret($0, name: Self.keyEnvironmentVariable) })
        mapping.set("sdp_file", sdp)
        return .output("rtp", mapping)
    }
}
