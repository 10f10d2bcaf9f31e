import Output

/// Why a WHIP publish could not start or stopped. Each case says what to check; none contains the
/// bearer token. ``isRetryable`` decides whether the output opens a new session after a backoff or
/// gives up (a wrong token or URL would only be refused again: no retry storm).
public enum WHIPError: Error, Sendable, Equatable {
    /// The endpoint URL is not an absolute http:// or https:// URL.
    case badURL(String)
    /// 401 or 403: the server refused the bearer token (or none was given).
    case unauthorized(status: Int, url: String)
    /// 404 on POST: nothing publishes at this URL.
    case endpointNotFound(url: String)
    /// The server would not take our offer (400, 406, 415, 422, …): `reason` is its body.
    case offerRejected(status: Int, reason: String)
    /// 409, 429 or 503: the endpoint is busy (another publisher, rate limit); try again later.
    case endpointBusy(status: Int)
    /// A 5xx other than 503.
    case serverError(status: Int, reason: String)
    /// A status WHIP does not use here.
    case unexpectedStatus(method: String, status: Int)
    /// More 307/308 redirects than allowed (a loop).
    case tooManyRedirects(limit: Int)
    /// A redirect or 201 without a usable `Location`.
    case badLocation(String)
    /// A 307/308 to a place `follow_redirects` does not let the bearer token go (``RedirectPolicy``).
    case redirectRefused(to: String, reason: String)
    /// The 201 answer is not SDP we can use (no common codec, bad fingerprint, …).
    case badAnswer(String)
    /// TCP connect failed: nothing listening, unreachable, refused.
    case connectionFailed(host: String, port: Int, reason: String)
    /// Certificate verification or the TLS handshake failed.
    case tlsFailed(reason: String)
    /// No complete response in time.
    case timedOut(method: String, seconds: Double)
    /// The response body exceeds what an SDP answer can need.
    case responseTooLarge(limit: Int)
    /// The connection closed before a complete response.
    case connectionClosed(method: String)
    /// The local UDP sockets for ICE could not be opened.
    case socketFailed(String)
    /// ICE and DTLS did not complete in time, or every candidate pair failed.
    case mediaConnectFailed(String)
    /// The server stopped answering ICE consent checks (RFC 7675).
    case consentLost
    /// The server ended DTLS (close_notify or an alert), or the handshake failed.
    case dtlsClosed(String)
    /// The server's RTCP receiver reports stopped acknowledging the video (``DeliveryHealth``) while
    /// media was sent: `evidence` says for how long and how much is unacknowledged.
    case stalled(evidence: String)

    /// Whether a new session later can help.
    public var isRetryable: Bool {
        switch self {
        case .badURL, .unauthorized, .endpointNotFound, .offerRejected, .tooManyRedirects, .redirectRefused, .badAnswer: false
        default: true
        }
    }

    /// A short, stable name for the delivery report's reconnect causes: which evidence ended a
    /// session that carried media (a stall seen in RTCP, or lost ICE consent, …).
    public var cause: String {
        switch self {
        case .stalled: "stalled"
        case .consentLost: "ICE consent lost"
        case .dtlsClosed: "DTLS closed"
        case .mediaConnectFailed: "ICE failed"
        default: "session error"
        }
    }
}

extension WHIPError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .badURL(let text):
            "'\(text)' is not a WHIP endpoint URL: give http(s)://HOST[:PORT]/PATH"
        case .unauthorized(let status, let url):
            "\(url) answered \(status): the bearer token is missing or wrong; check --bearer/--bearer-file (or the config's token)"
        case .endpointNotFound(let url):
            "\(url) answered 404: no WHIP endpoint at this URL; check the endpoint URL (path and stream name)"
        case .offerRejected(let status, let reason):
            "the server refused our SDP offer (\(status)): \(reason.prefix(200)); it may not accept H.264"
        case .endpointBusy(let status):
            "the endpoint is busy (\(status)): another publisher or a rate limit; retrying later"
        case .serverError(let status, let reason):
            "server error \(status): \(reason.prefix(200)); check the server's logs"
        case .unexpectedStatus(let method, let status):
            "unexpected HTTP \(status) to \(method); is this a WHIP endpoint?"
        case .tooManyRedirects(let limit):
            "more than \(limit) redirects: a redirect loop; check the endpoint URL"
        case .badLocation(let text):
            "the server sent an unusable Location '\(text.prefix(120))'"
        case .redirectRefused(let target, let reason):
            "the endpoint redirected to \(target), which the bearer token may not follow: \(reason)"
        case .badAnswer(let reason):
            "cannot use the server's SDP answer: \(reason)"
        case .connectionFailed(let host, let port, let reason):
            "could not connect to \(host):\(port) (\(reason)); check the host and port and that the server is running"
        case .tlsFailed(let reason):
            "TLS failed (\(reason)); only the system trust store is trusted by default: for a server with its own CA pass it with --whip-ca FILE, and use the host name the certificate names"
        case .timedOut(let method, let seconds):
            "no answer to \(method) within \(seconds) s"
        case .responseTooLarge(let limit):
            "the response exceeds \(limit) bytes"
        case .connectionClosed(let method):
            "the server closed the connection before answering \(method)"
        case .socketFailed(let reason):
            "cannot open a UDP socket for WebRTC media: \(reason)"
        case .mediaConnectFailed(let reason):
            "WebRTC media did not connect: \(reason); check that UDP reaches the server's candidates"
        case .consentLost:
            "the server stopped answering ICE consent checks"
        case .dtlsClosed(let reason):
            "the server ended DTLS: \(reason)"
        case .stalled(let evidence):
            "the server stopped acknowledging the media: \(evidence)"
        }
    }
}

/// The shared connection lifecycle retries or gives up by ``WHIPError/isRetryable``, and counts losses by ``WHIPError/cause``.
extension WHIPError: ConnectionError {}
