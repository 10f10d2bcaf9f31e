import Output
import RTMP

/// Why an RTMP output could not connect or stopped publishing. Each case says what to check;
/// none contains a stream key. `isRetryable` decides whether the output reconnects.
public enum RTMPClientError: Error, Sendable, Hashable {
    /// The protocol layer rejected something the server sent, or the server refused us.
    case protocolError(RTMPError)
    /// TCP (or TLS) connect failed: nothing listening, unreachable, or refused.
    case connectionFailed(host: String, port: Int, reason: String)
    /// The server closed the connection; `phase` says when (handshake, connect, publishing).
    case closedByServer(phase: String)
    /// No complete handshake within the time allowed.
    case handshakeTimedOut(seconds: Double)
    /// The TLS handshake failed for a reason other than the certificate (rtmps://).
    case tlsFailed(reason: String)
    /// The server's certificate did not verify: not signed by a trusted CA (self-signed, a private CA),
    /// expired, or issued for another name. Stays retryable: a broadcaster should resume by itself once
    /// the server's certificate is fixed, and the backoff keeps the attempts sparse.
    case certificateNotVerified(reason: String)
    /// The server stopped acknowledging the stream (``DeliveryHealth``): the link or the server is
    /// stuck even if TCP has not noticed; `evidence` says what was missing, for how long.
    case stalled(evidence: String)
    /// The encoder produced something this output cannot put in FLV.
    case unsupportedStream(reason: String)
}

extension RTMPClientError {
    /// Whether trying again later can help. A refused key or application will be refused again,
    /// so those stop the output instead of hammering the ingest.
    public var isRetryable: Bool {
        switch self {
        case .protocolError(.connectRejected), .unsupportedStream:
            return false
        case .protocolError(.publishRejected(let code, _)):
            // BadName usually means "already publishing": the old session may still be timing out.
            return code != "NetStream.Publish.Unauthorized" && code != "NetStream.Publish.Rejected"
        default:
            return true
        }
    }
}

extension RTMPClientError {
    /// Whether the server refused the publish because the stream key is already being published:
    /// `NetStream.Publish.BadName`, which the RTMP servers send for exactly that (Adobe's "already being
    /// published by someone else", nginx-rtmp's "Already publishing", Wowza's and Red5's alike). After
    /// a loss of our own this is usually our previous, frozen session (``KeyInUseRetry``).
    public var isKeyInUse: Bool {
        if case .protocolError(.publishRejected(RTMPStatus.Code.publishBadName, _)) = self { return true }
        return false
    }
}

extension RTMPClientError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .protocolError(let error):
            return error.description
        case .connectionFailed(let host, let port, let reason):
            return "could not connect to \(host):\(port) (\(reason)); check the host and port and that the server is running"
        case .closedByServer(let phase):
            return "the server closed the connection \(phase); it may have restarted, or refused the stream without saying why (check its logs and the stream key)"
        case .handshakeTimedOut(let seconds):
            return "no RTMP handshake answer within \(seconds) s; check that the port is an RTMP ingest (rtmps:// for TLS ports such as 443)"
        case .tlsFailed(let reason):
            return "TLS failed (\(reason)); check that the port speaks TLS, or use rtmp:// for a plain port"
        case .certificateNotVerified(let reason):
            return "the server's TLS certificate could not be verified (\(reason)); only the system trust store is trusted by default: "
                + "for a server with its own or a self-signed CA, pass that CA certificate (PEM) with --rtmps-ca FILE, "
                + "and use the host name the certificate was issued for"
        case .stalled(let evidence):
            return "the server stopped taking the stream (\(evidence)); the link or the server is stuck"
        case .unsupportedStream(let reason):
            return "cannot publish this stream over RTMP: \(reason)"
        }
    }
}

extension RTMPClientError: ConnectionError {
    /// A short, stable name for the delivery report's reconnect causes.
    public var cause: String {
        switch self {
        case .protocolError: return "protocol error"
        case .connectionFailed: return "connection failed"
        case .closedByServer: return "closed by server"
        case .handshakeTimedOut: return "handshake timed out"
        case .tlsFailed, .certificateNotVerified: return "tls"
        case .stalled: return "stalled"
        case .unsupportedStream: return "unsupported stream"
        }
    }
}
