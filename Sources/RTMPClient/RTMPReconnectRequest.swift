import Output
import RTMP

/// A server's `NetConnection.Connect.ReconnectRequest` (enhanced RTMP v2), decided without a socket:
/// where the stream goes, and at which queued item the new connection takes over from the old one.
/// ``RTMPOutput`` opens and closes the connections; these rules are unit-tested on their own.
public enum RTMPReconnectRequest {
    public enum Decision: Sendable, Equatable {
        /// Open a connection to this URL (the stream key carried along) beside the live one.
        case follow(RTMPURL)
        /// Stay on the live connection: `target` is where the server asked to go (key masked), `reason` why not.
        case refuse(target: String, reason: String)
    }

    /// Where to reconnect: the same place when the request names no `tcUrl`; else the `tcUrl` with the
    /// stream key, provided ``RedirectPolicy`` lets the key go there from the configured URL (never
    /// rtmps → rtmp; another host only with `follow_redirects: any`).
    public static func decide(tcURL: String?, current: RTMPURL, configured: RTMPURL, policy: RedirectPolicy) -> Decision {
        guard let tcURL else { return .follow(current) }
        let target: RTMPURL
        do {
            target = try RTMPURL("\(tcURL)/\(configured.streamKey)")
        } catch {
            return .refuse(target: tcURL, reason: "its tcUrl is unusable (\(error))")
        }
        if let refusal = policy.refusal(from: .init(usesTLS: configured.scheme.usesTLS, host: configured.host),
                                        to: .init(usesTLS: target.scheme.usesTLS, host: target.host)) {
            return .refuse(target: target.redacted, reason: refusal)
        }
        return .follow(target)
    }

    /// Whether the replacement takes over at the front of the send queue: only once it is publishing
    /// and only at a keyframe, so the old connection gets every item before that keyframe, the new one
    /// the keyframe and everything after it, and no item goes to both.
    public static func handsOver(replacementReady: Bool, nextIsKeyFrame: Bool) -> Bool {
        replacementReady && nextIsKeyFrame
    }
}
