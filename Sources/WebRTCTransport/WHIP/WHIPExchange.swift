import NIOHTTP1

/// A session the WHIP endpoint created (RFC 9725 §4.2): where it lives and what it answered.
public struct WHIPSessionResource: Sendable, Hashable {
    /// The `Location` of the 201, resolved: PATCH and DELETE go here.
    public var url: WHIPURL
    public var answer: String
    public var iceServers: [WHIPICEServer]
    public var etag: String?
}

/// The requests of RFC 9725 and how their responses read, without I/O: tests feed responses in.
public enum WHIPExchange {
    /// What a POST's response means.
    public enum OfferOutcome: Sendable, Hashable {
        case created(WHIPSessionResource)
        /// 307/308 (RFC 9725 §4.5): POST the same offer there.
        case redirect(WHIPURL)
    }

    /// What a PATCH (ICE restart) response means.
    public enum RestartOutcome: Sendable, Hashable {
        case accepted(WHIPICERestartFragment, etag: String?)
        /// 405 or 501 (RFC 9725 §4.4.1): no ICE restart here; start a fresh session.
        case notSupported(status: Int)
    }

    static let sdpType = "application/sdp"
    static let trickleType = "application/trickle-ice-sdpfrag"

    /// POST the offer (RFC 9725 §4.2).
    public static func offer(_ sdp: String, to url: WHIPURL, bearerToken: String?) -> WHIPHTTPRequest {
        WHIPHTTPRequest(method: .POST, url: url, headers: [("Content-Type", sdpType)] + authorization(bearerToken), body: sdp)
    }

    /// End the session (RFC 9725 §4.2).
    public static func delete(_ resource: WHIPSessionResource, bearerToken: String?) -> WHIPHTTPRequest {
        WHIPHTTPRequest(method: .DELETE, url: resource.url, headers: authorization(bearerToken))
    }

    /// ICE restart (RFC 9725 §4.4.1): new credentials in a trickle fragment, `If-Match: "*"`.
    public static func iceRestart(_ fragment: WHIPICERestartFragment, of resource: WHIPSessionResource, bearerToken: String?) -> WHIPHTTPRequest {
        WHIPHTTPRequest(method: .PATCH, url: resource.url,
                        headers: [("Content-Type", trickleType), ("If-Match", "\"*\"")] + authorization(bearerToken),
                        body: fragment.sdpfrag)
    }

    private static func authorization(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    /// Reads a POST response; `redirectsFollowed` counts the redirects behind this request.
    public static func interpretOffer(_ response: WHIPHTTPResponse, requestURL: WHIPURL, redirectsFollowed: Int,
                                      maximumRedirects: Int) throws(WHIPError) -> OfferOutcome {
        switch response.status {
        case 201:
            guard let location = response.headers.first(name: "Location") else { throw .badLocation("(none in the 201)") }
            guard response.body.contains("v=0") else { throw .badAnswer("the 201 carries no SDP") }
            return .created(WHIPSessionResource(url: try requestURL.resolving(location), answer: response.body,
                                                iceServers: WHIPICEServer.parse(linkHeaders: response.headers["Link"]),
                                                etag: response.headers.first(name: "ETag")))
        case 307, 308:
            guard redirectsFollowed < maximumRedirects else { throw .tooManyRedirects(limit: maximumRedirects) }
            guard let location = response.headers.first(name: "Location") else { throw .badLocation("(none in the \(response.status))") }
            return .redirect(try requestURL.resolving(location))
        case 404:
            throw .endpointNotFound(url: requestURL.redacted)
        default:
            throw error(for: response, method: "POST", url: requestURL)
        }
    }

    /// Reads a PATCH response.
    public static func interpretRestart(_ response: WHIPHTTPResponse, resourceURL: WHIPURL) throws(WHIPError) -> RestartOutcome {
        switch response.status {
        case 200:
            return .accepted(try WHIPICERestartFragment(parsing: response.body), etag: response.headers.first(name: "ETag"))
        case 405, 501:
            return .notSupported(status: response.status)
        default:
            throw error(for: response, method: "PATCH", url: resourceURL)
        }
    }

    /// The error a failure status means (RFC 9725 §4.2, §4.5 and RFC 9110 §15).
    static func error(for response: WHIPHTTPResponse, method: String, url: WHIPURL) -> WHIPError {
        switch response.status {
        case 401, 403: .unauthorized(status: response.status, url: url.redacted)
        case 400, 406, 415, 422, 488: .offerRejected(status: response.status, reason: response.body)
        case 409, 429, 503: .endpointBusy(status: response.status)
        case 500...599: .serverError(status: response.status, reason: response.body)
        default: .unexpectedStatus(method: method, status: response.status)
        }
    }
}
