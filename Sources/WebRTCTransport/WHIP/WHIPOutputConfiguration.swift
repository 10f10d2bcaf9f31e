import Output
import RTPOutput

/// Everything one WHIP destination needs; the defaults suit a headless publisher on a flaky uplink.
public struct WHIPOutputConfiguration: Sendable {
    /// The WHIP endpoint (RFC 9725 §3), e.g. `https://server/whip/cam0`.
    public var endpoint: WHIPURL
    /// Sent as `Authorization: Bearer …` on every request (RFC 9725 §4.5); never logged.
    public var bearerToken: String?
    /// Extra PEM CA certificates for https (a private server's own CA).
    public var caCertificatesPath: String?
    /// Each HTTP request (connect, TLS, response) must finish within this.
    public var requestTimeoutSeconds = 10.0
    /// 307/308 redirects followed per POST (RFC 9725 §4.5).
    public var maximumRedirects = 5
    /// Where a redirect or the session's `Location` may take the bearer token (YAML
    /// `follow_redirects`): the endpoint's host only by default; never from https to http.
    public var followRedirects = RedirectPolicy.sameHost
    /// ICE and DTLS must complete within this after the answer.
    public var connectTimeoutSeconds = 15.0
    /// No consent response for this long means the path is gone (RFC 7675 §5.1 says 30 s; a
    /// publisher recovers sooner with less).
    public var consentTimeoutSeconds = 10.0
    /// No progress in the server's RTCP receiver reports for this long while video is sent: the
    /// session is stalled and replaced (``DeliveryHealth``; YAML `stall_timeout`).
    public var stallTimeoutSeconds = 5.0
    /// Between two dead sessions; nil attempts retries for ever.
    public var reconnect = ReconnectPolicy()
    /// Local addresses for host candidates; empty: every IPv4 interface address (loopback included).
    public var localAddresses: [String] = []
    /// Frames waiting for the event loop before new ones are dropped (and a key frame requested).
    public var queueCapacity = 30
    /// Opus frames (20 ms each) waiting for the event loop before new ones are dropped.
    public var audioQueueCapacity = 50
    public var media = WebRTCMediaSender.Configuration()

    /// The bearer token for a request to `url`: withheld where ``followRedirects`` does not let it
    /// go from the configured endpoint (another host, or plain http after https); `refusal` says why.
    func bearerToken(for url: WHIPURL) -> (token: String?, refusal: String?) {
        guard let bearerToken else { return (nil, nil) }
        let refusal = followRedirects.refusal(from: .init(usesTLS: endpoint.isTLS, host: endpoint.host), to: .init(usesTLS: url.isTLS, host: url.host))
        return refusal == nil ? (bearerToken, nil) : (nil, refusal)
    }

    public init(endpoint: WHIPURL, bearerToken: String? = nil) {
        self.endpoint = endpoint
        self.bearerToken = bearerToken
    }
}
