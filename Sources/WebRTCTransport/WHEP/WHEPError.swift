/// Failures of the WHEP endpoint, each mapped to the HTTP status a WHEP client should see.
public enum WHEPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The POST body is not an SDP offer we can answer (WebRTC's parser or negotiator said why).
    case badOffer(String)
    /// `Content-Type` is not `application/sdp` (RFC 9725 §4.2).
    case unsupportedMediaType(String)
    /// No viewer with this id (already deleted, or expired after consent failed).
    case unknownSession(String)
    /// The configured viewer limit is reached; try again when someone leaves.
    case tooManyViewers(limit: Int)
    /// One client address already has its share of viewers (`limits.whep_viewers_per_address`).
    case tooManyViewersFromAddress(String, limit: Int)
    /// The UDP media socket could not be opened on the configured address.
    case socketFailed(String)
    /// The service is not running (not started yet, or stopped).
    case notRunning
    /// The stream is rotated and sent as captured with the rotation as metadata, the offer lacks
    /// the video orientation extension (urn:3gpp:video-orientation) to apply it, and nothing can
    /// make the encode turn the pixels instead (no `StreamPipeline` gave the service its fallback).
    case needsVideoOrientation(degrees: Int)

    public var httpStatus: Int {
        switch self {
        case .badOffer: 400
        case .unsupportedMediaType: 415
        case .unknownSession: 404
        case .tooManyViewers, .notRunning: 503
        case .tooManyViewersFromAddress: 429
        case .socketFailed: 500
        case .needsVideoOrientation: 406
        }
    }

    public var description: String {
        switch self {
        case .badOffer(let reason): "cannot answer the SDP offer: \(reason)"
        case .unsupportedMediaType(let type): "POST an SDP offer with Content-Type application/sdp, not '\(type)'"
        case .unknownSession(let id): "no WHEP session \(id) (deleted or expired)"
        case .tooManyViewers(let limit): "viewer limit (\(limit)) reached: try again later"
        case .tooManyViewersFromAddress(let address, let limit):
            "\(address) already has \(limit) viewers open (limits.whep_viewers_per_address): close one (DELETE its session) first"
        case .socketFailed(let reason): "cannot open the WebRTC UDP port: \(reason)"
        case .notRunning: "the WHEP service is not running"
        case .needsVideoOrientation(let degrees):
            "the stream is rotated \(degrees)° and sends the rotation in the urn:3gpp:video-orientation RTP header extension, and its encoder cannot be switched to turning the pixels: offer the extension (browsers do)"
        }
    }
}
