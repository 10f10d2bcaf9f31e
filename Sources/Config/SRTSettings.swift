import Codec

/// An SRT destination as the config names it: `srt://HOST:PORT` plus the fields libsrt's own URLs
/// carry in the query (`streamid`, `passphrase`, `pbkeylen`, `latency`, `mode`), which the serve
/// YAML also takes as keys.
public struct SRTSettings: Sendable, Equatable {
    /// Caller dials the receiver (the default, as OBS and ffmpeg do); listener waits on `port` for
    /// a receiver to dial in (through a NAT that lets only the receiver connect).
    public enum Mode: String, Sendable, CaseIterable {
        case caller, listener
    }

    /// The receiver (caller) or the local address to listen on (listener; empty: every interface).
    public var host: String
    public var port: Int
    public var mode: Mode
    /// Sent to the receiver in the handshake; services put the publish path (and often a key) here.
    public var streamID: Secret?
    /// AES encryption (PBKDF2 from this passphrase); nil sends in the clear.
    public var passphrase: Secret?
    /// AES key length in bytes: 16, 24 or 32; nil leaves libsrt's 16.
    public var keyLengthBytes: Int?
    /// The latency window in milliseconds; nil leaves libsrt's 120 ms.
    public var latencyMilliseconds: Int?
    /// The audio codec in the transport stream (`audio_codec`): AAC unless Opus is asked for.
    public var audioCodec: AudioCodec = .aac

    public init(host: String, port: Int, mode: Mode = .caller, streamID: Secret? = nil, passphrase: Secret? = nil,
                keyLengthBytes: Int? = nil, latencyMilliseconds: Int? = nil) {
        self.host = host
        self.port = port
        self.mode = mode
        self.streamID = streamID
        self.passphrase = passphrase
        self.keyLengthBytes = keyLengthBytes
        self.latencyMilliseconds = latencyMilliseconds
    }

    /// libsrt refuses other lengths (SRTO_PASSPHRASE).
    public static let passphraseLengths = 10...79
    public static let keyLengths = [16, 24, 32]
    /// Below 20 ms retransmission has no time to work; above 8 s the send buffer (8 MB) runs out.
    public static let latencyRange = 20...8000

    /// For logs and the API: the stream ID and passphrase masked, the mode shown.
    public var maskedURL: String {
        var query: [String] = []
        if streamID != nil { query.append("streamid=***") }
        if passphrase != nil { query.append("passphrase=***") }
        if let keyLengthBytes { query.append("pbkeylen=\(keyLengthBytes)") }
        if let latencyMilliseconds { query.append("latency=\(latencyMilliseconds)") }
        if mode == .listener { query.append("mode=listener") }
        if audioCodec != .aac { query.append("audio_codec=\(audioCodec)") }
        return "srt://\(host.contains(":") ? "[\(host)]" : host):\(port)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}
