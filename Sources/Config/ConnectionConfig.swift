import Output

/// How an output that connects (rtmp, whip) waits and tries again; nil leaves the sender's own
/// default, so a config only names what it changes.
public struct ConnectionConfig: Sendable, Equatable {
    /// How long the connect, the handshake and each request or answer may take.
    public var timeoutSeconds: Double?
    /// The backoff between attempts after a loss.
    public var reconnect: ReconnectPolicy?
    /// rtmp: media that may queue before frames are dropped by GOP.
    public var sendQueueSeconds: Double?
    /// whip: how long ICE consent checks may go unanswered before the session is restarted.
    public var consentTimeoutSeconds: Double?
    /// rtmp, srt, whip, whep, rtp: how long the receiver may acknowledge nothing (RTMP Acknowledgements,
    /// SRT ACKs, RTCP receiver reports), with media owed, before the output counts as stalled and
    /// reconnects (default 5 s; rtp has no connection and only marks it, once its receiver sends RTCP).
    public var stallTimeoutSeconds: Double?
    /// rtmp: how long after a loss of ours a key the server still holds ("already publishing") is
    /// retried every 250 ms instead of after the growing backoff (default 60 s; `off`, 0 here, turns it off).
    public var inUseRetrySeconds: Double?
    /// rtp: the local UDP port to send from, where the receiver sends its RTCP back (ephemeral when nil).
    public var localPort: Int?
    /// rtmp, whip: where the server may move the stream key or bearer token (an enhanced-RTMP
    /// ReconnectRequest, a WHIP redirect or session Location); nil: `same_host`.
    public var followRedirects: RedirectPolicy?
    /// rtmp, srt: backup ingests, in order (`backup:`). An RTMP backup takes the output's `key` unless
    /// its URL names its own stream key; an SRT backup takes the output's settings unless its URL
    /// gives its own `streamid` or `passphrase`.
    public var backupURLs: [String] = []
    /// What the backups are for (`backup_mode`): moved to on a stall or error, or published to at once.
    public var backupMode: BackupMode = .failover
    /// rtmp, srt with backups in failover mode: how long the primary must stay reachable before the stream
    /// returns to it (`backup_return_after`; default 10 s).
    public var backupReturnAfterSeconds: Double?

    public init(timeoutSeconds: Double? = nil, reconnect: ReconnectPolicy? = nil, sendQueueSeconds: Double? = nil,
                consentTimeoutSeconds: Double? = nil) {
        self.timeoutSeconds = timeoutSeconds
        self.reconnect = reconnect
        self.sendQueueSeconds = sendQueueSeconds
        self.consentTimeoutSeconds = consentTimeoutSeconds
    }
}

/// What an output's `backup:` ingests are for (`backup_mode`).
public enum BackupMode: String, Sendable, CaseIterable {
    /// One ingest at a time: on a stall or error the stream moves to the next, and back to the
    /// primary once it has been reachable for a while (``Output/IngestFailover``).
    case failover
    /// Every ingest at once, from the same encode, as YouTube recommends for its primary and backup
    /// ingests: the output becomes one output per ingest (``ConfigParser``), each with its own queue,
    /// health, reconnect and status, so a failure of one never stalls another.
    case both
}

/// The built-in WHEP endpoint's viewer side: where their media goes and who may watch.
public struct WHEPViewerConfig: Sendable, Equatable {
    /// UDP port shared by every viewer's media; 0 picks a free one.
    public var udpPort: Int
    /// Bearer token viewers must send with POST/DELETE (besides the API token, where one is set).
    public var token: Secret?
    /// With adaptive_bitrate: the lowest bitrate the viewers' estimates (REMB) may set; nil: 300k
    /// or the camera's bitrate, whichever is lower.
    public var minimumBitrateBitsPerSecond: Int?

    public init(udpPort: Int = 0, token: Secret? = nil, minimumBitrateBitsPerSecond: Int? = nil) {
        self.udpPort = udpPort
        self.token = token
        self.minimumBitrateBitsPerSecond = minimumBitrateBitsPerSecond
    }
}
