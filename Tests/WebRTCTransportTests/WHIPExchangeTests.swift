import NIOHTTP1
import Output
import Testing
@testable import WebRTCTransport
import WebRTC

/// The WHIP client's pure parts: URLs and their masking, Link headers, how POST and PATCH
/// responses read (redirects, errors that say what to do), and the ICE restart fragment.
@Suite struct WHIPExchangeTests {
    static let endpoint = try! WHIPURL("https://ingest.example.com/whip/cam0")

    static func response(_ status: Int, _ headers: [(String, String)] = [], body: String = "") -> WHIPHTTPResponse {
        WHIPHTTPResponse(status: status, headers: HTTPHeaders(headers), body: body)
    }

    // MARK: URLs

    @Test(arguments: [
        ("http://127.0.0.1:8889/cam/whip", false, "127.0.0.1", 8889, "/cam/whip"),
        ("https://ingest.example.com/whip?app=live", true, "ingest.example.com", 443, "/whip?app=live"),
        ("http://[::1]:8080", false, "::1", 8080, "/"),
        ("HTTPS://Host.Example:8443/a%20b", true, "Host.Example", 8443, "/a%20b"),
    ])
    func parsesEndpoints(text: String, isTLS: Bool, host: String, port: Int, target: String) throws {
        let url = try WHIPURL(text)
        #expect(url.isTLS == isTLS && url.host == host && url.port == port && url.target == target)
    }

    @Test(arguments: ["rtmp://host/app", "not a url", "http:///path", "https://host:70000/x", ""])
    func refusesWhatIsNotAnHTTPEndpoint(text: String) {
        #expect(throws: WHIPError.self) { try WHIPURL(text) }
    }

    @Test func resolvesLocations() throws {
        #expect(try Self.endpoint.resolving("cam0/session/1").description == "https://ingest.example.com/whip/cam0/session/1")
        #expect(try Self.endpoint.resolving("/resource/abc").description == "https://ingest.example.com/resource/abc")
        #expect(try Self.endpoint.resolving("http://other:8080/r").description == "http://other:8080/r")
        #expect(throws: WHIPError.self) { try Self.endpoint.resolving("") }
    }

    @Test(arguments: [
        ("https://host/whip/cam?token=abc123&x", "https://host/whip/cam?token=***&x"),
        ("https://user:pass@host:8443/whip", "https://host:8443/whip"),
        ("https://host/0123456789abcdef0123456789abcdef/webRTC/publish", "https://host/0123***/webRTC/publish"),
        ("http://127.0.0.1:8889/cam0/whip", "http://127.0.0.1:8889/cam0/whip"),
    ])
    func masksKeysInURLs(text: String, masked: String) throws {
        #expect(URLRedaction.mask(text) == masked)
    }

    // MARK: Link headers (RFC 9725 §4.6)

    @Test func readsICEServersFromLinkHeaders() {
        let servers = WHIPICEServer.parse(linkHeaders: [
            "<stun:stun.example.net>; rel=\"ice-server\"",
            "<turn:turn.example.net?transport=udp>; rel=\"ice-server\"; username=\"user\"; credential=\"my;pa\\\"ss\"; credential-type=\"password\", <https://example.net/doc>; rel=\"help\"",
            "<stun:[2001:db8::1]:3479>; rel=ice-server",
            "garbage, <stun:no-rel.example>",
        ])
        #expect(servers == [
            WHIPICEServer(url: "stun:stun.example.net"),
            WHIPICEServer(url: "turn:turn.example.net?transport=udp", username: "user", credential: "my;pa\"ss"),
            WHIPICEServer(url: "stun:[2001:db8::1]:3479"),
        ])
        let addresses = servers.map { $0.stunAddress.map { "\($0.host) \($0.port)" } }
        #expect(addresses == ["stun.example.net 3478", nil, "2001:db8::1 3479"])
        #expect(WHIPICEServer(url: "stun:host:99999").stunAddress == nil)
    }

    // MARK: POST

    @Test func createdSessionResolvesItsLocationAndKeepsLinksAndETag() throws {
        let outcome = try WHIPExchange.interpretOffer(
            Self.response(201, [("Location", "cam0/session/7"), ("ETag", "\"v1\""), ("Link", "<stun:127.0.0.1:3478>; rel=\"ice-server\"")],
                          body: "v=0\r\n"),
            requestURL: Self.endpoint, redirectsFollowed: 0, maximumRedirects: 3)
        guard case .created(let resource) = outcome else { Issue.record("\(outcome)"); return }
        #expect(resource.url.description == "https://ingest.example.com/whip/cam0/session/7")
        #expect(resource.etag == "\"v1\"" && resource.iceServers == [WHIPICEServer(url: "stun:127.0.0.1:3478")])
    }

    @Test(arguments: [307, 308])
    func redirectsAreFollowedUpToTheLimit(status: Int) throws {
        let redirect = Self.response(status, [("Location", "https://other.example.com/whip/cam0")])
        let outcome = try WHIPExchange.interpretOffer(redirect, requestURL: Self.endpoint, redirectsFollowed: 2, maximumRedirects: 3)
        #expect(outcome == .redirect(try WHIPURL("https://other.example.com/whip/cam0")))
        #expect(throws: WHIPError.tooManyRedirects(limit: 3)) {
            try WHIPExchange.interpretOffer(redirect, requestURL: Self.endpoint, redirectsFollowed: 3, maximumRedirects: 3)
        }
        #expect(throws: WHIPError.self) {
            try WHIPExchange.interpretOffer(Self.response(status), requestURL: Self.endpoint, redirectsFollowed: 0, maximumRedirects: 3)
        }
    }

    @Test(arguments: [
        (401, "bearer token", false), (403, "bearer token", false), (404, "endpoint URL", false), (415, "SDP offer", false),
        (503, "busy", true), (500, "server error", true), (302, "unexpected", true),
    ])
    func failuresSayWhatToCheck(status: Int, advice: String, retryable: Bool) {
        do {
            _ = try WHIPExchange.interpretOffer(Self.response(status, body: "nope"), requestURL: Self.endpoint, redirectsFollowed: 0, maximumRedirects: 3)
            Issue.record("\(status) was accepted")
        } catch {
            #expect(error.description.contains(advice), "\(error)")
            #expect(error.isRetryable == retryable, "\(error)")
        }
    }

    @Test func aCreatedSessionNeedsALocationAndAnAnswer() {
        #expect(throws: WHIPError.self) {
            try WHIPExchange.interpretOffer(Self.response(201, body: "v=0\r\n"), requestURL: Self.endpoint, redirectsFollowed: 0, maximumRedirects: 3)
        }
        #expect(throws: WHIPError.self) {
            try WHIPExchange.interpretOffer(Self.response(201, [("Location", "/r")]), requestURL: Self.endpoint, redirectsFollowed: 0, maximumRedirects: 3)
        }
    }

    @Test func requestsCarryTheTokenAndContentTypes() throws {
        let offer = WHIPExchange.offer("v=0\r\n", to: Self.endpoint, bearerToken: "t0k")
        let head = WHIPHTTPClient.head(of: offer)
        #expect(head.method == .POST && head.uri == "/whip/cam0")
        #expect(head.headers["Authorization"] == ["Bearer t0k"] && head.headers["Content-Type"] == ["application/sdp"])
        #expect(head.headers["Host"] == ["ingest.example.com"] && head.headers["Content-Length"] == ["5"])
        let resource = WHIPSessionResource(url: try Self.endpoint.resolving("/r/1"), answer: "", iceServers: [], etag: nil)
        #expect(WHIPHTTPClient.head(of: WHIPExchange.delete(resource, bearerToken: nil)).headers["Authorization"].isEmpty)
        // The masked name never shows the token.
        #expect(!"\(WHIPError.unauthorized(status: 401, url: Self.endpoint.redacted))".contains("t0k"))
    }

    // MARK: PATCH (ICE restart, RFC 9725 §4.4.1)

    @Test func iceRestartFragmentRoundTripsAndRefusalsMeanFreshSessions() throws {
        let fragment = WHIPICERestartFragment(credentials: ICECredentials(ufrag: "abcd1234", pwd: "0123456789abcdefghijklmn"), mid: "0",
                                              candidates: [.host(TransportAddress("127.0.0.1", 50000)!)])
        #expect(try WHIPICERestartFragment(parsing: fragment.sdpfrag) == fragment)
        let resource = try Self.endpoint.resolving("/r/1")
        let request = WHIPExchange.iceRestart(fragment, of: WHIPSessionResource(url: resource, answer: "", iceServers: [], etag: nil), bearerToken: nil)
        #expect(request.method == .PATCH && request.headers.contains { $0 == ("If-Match", "\"*\"") })
        #expect(try WHIPExchange.interpretRestart(Self.response(200, [("ETag", "\"2\"")], body: fragment.sdpfrag), resourceURL: resource)
                == .accepted(fragment, etag: "\"2\""))
        #expect(try WHIPExchange.interpretRestart(Self.response(405), resourceURL: resource) == .notSupported(status: 405))
        #expect(try WHIPExchange.interpretRestart(Self.response(501), resourceURL: resource) == .notSupported(status: 501))
        #expect(throws: WHIPError.self) { try WHIPExchange.interpretRestart(Self.response(200, body: "a=mid:0\r\n"), resourceURL: resource) }
    }
}
