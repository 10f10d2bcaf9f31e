import Config
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Server
import Testing
import TestSupport

/// The two roles against the real router: a viewer reads and watches, only the admin changes
/// things; the dashboard's login cookie stands for the role its token granted; logins are rate
/// limited; a reload swaps tokens and host names.
@Suite(.serialized) struct AccessRoleTests {
    static let admin = Secret(origin: "inline", value: "admin-7c1e9f0b2d")
    static let viewer = Secret(origin: "inline", value: "viewer-4a8d3b6e1f")
    static func tokens(_ config: inout LivepushConfig) {
        config.apiToken = admin
        config.viewerToken = viewer
    }

    static let readRoutes = ["/api/status", "/api/cameras/cam0", "/api/cameras/cam0/snapshot.jpg", "/metrics", "/api/session"]
    /// (uri, JSON body): every one changes something.
    static let controlRoutes = [("/api/cameras/cam0/keyframe", nil), ("/api/cameras/cam0/bitrate", #"{"bitrate":"400k"}"#),
                                ("/api/cameras/cam0/source", #"{"source":"testpattern"}"#), ("/api/cameras/cam0/outputs/record/stop", nil)]

    static func bearer(_ secret: Secret) -> HTTPFields { [.authorization: "Bearer \(secret.value)"] }

    static func post(_ client: some TestClientProtocol, _ uri: String, _ body: String?, headers: HTTPFields) async throws -> TestResponse {
        var headers = headers
        if body != nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    @Test func eachRoleGetsWhatItMayAndNoMore() async throws {
        try await ServerFixture.run(configure: Self.tokens) { client, _, _, _ in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            for uri in Self.readRoutes {
                for headers: HTTPFields in [[:], [.authorization: "Bearer wrong"], [.authorization: "Basic YTpi"]] {
                    try await client.execute(uri: uri, method: .get, headers: headers) { response in
                        #expect(response.status == .unauthorized, "\(uri) \(headers)")
                    }
                }
                for token in [Self.viewer, Self.admin] {
                    try await client.execute(uri: uri, method: .get, headers: Self.bearer(token)) { #expect($0.status == .ok, "\(uri)") }
                }
            }
            for (uri, body) in Self.controlRoutes {
                #expect(try await Self.post(client, uri, body, headers: [:]).status == .unauthorized, "\(uri)")
                let refused = try await Self.post(client, uri, body, headers: Self.bearer(Self.viewer))
                #expect(refused.status == .forbidden, "\(uri)")
                #expect(ServerFixture.errorMessage(refused)?.contains("api_token") == true, "\(uri): the refusal names the admin's key")
            }
            for (uri, body) in Self.controlRoutes {
                #expect(try await Self.post(client, uri, body, headers: Self.bearer(Self.admin)).status == .ok, "\(uri)")
            }
        }
    }

    @Test func theLoginCookieStandsForItsRole() async throws {
        try await ServerFixture.run(configure: Self.tokens) { client, _, _, _ in
            let wrong = try await Self.post(client, "/api/login", #"{"token":"guess"}"#, headers: [:])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.setCookie] == nil)
            let login = try await Self.post(client, "/api/login", #"{"token":"\#(Self.viewer.value)"}"#, headers: [:])
            #expect(login.status == .ok)
            let setCookie = try #require(login.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"), "\(setCookie)")
            #expect(!setCookie.contains(Self.viewer.value), "the cookie is a session id, not the token")
            let session = try #require(setCookie.split(separator: ";").first.map(String.init))
            let cookie: HTTPFields = [.cookie: session]
            try await client.execute(uri: "/api/status", method: .get, headers: cookie) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/session", method: .get, headers: cookie) { response in
                #expect(String(buffer: response.body).contains(#""role":"viewer""#))
            }
            #expect(try await Self.post(client, "/api/cameras/cam0/keyframe", nil, headers: cookie).status == .forbidden)
            #expect(try await Self.post(client, "/api/logout", nil, headers: cookie).status == .ok)
            try await client.execute(uri: "/api/status", method: .get, headers: cookie) { #expect($0.status == .unauthorized, "logged out") }
            try await client.execute(uri: "/api/status", method: .get, headers: [.cookie: "livepush_session=forged"]) { #expect($0.status == .unauthorized) }

            let adminLogin = try await Self.post(client, "/api/login", #"{"token":"\#(Self.admin.value)"}"#, headers: [:])
            let adminSession = try #require(adminLogin.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            #expect(try await Self.post(client, "/api/cameras/cam0/keyframe", nil, headers: [.cookie: adminSession]).status == .ok)
        }
    }

    @Test func loginsAreRateLimitedPerAddress() async throws {
        try await ServerFixture.run(configure: { config in
            Self.tokens(&config)
            config.limits.requestsPerMinutePerAddress = 5
        }) { client, _, _, _ in
            for attempt in 1...5 {
                #expect(try await Self.post(client, "/api/login", #"{"token":"guess\#(attempt)"}"#, headers: [:]).status == .unauthorized)
            }
            let limited = try await Self.post(client, "/api/login", #"{"token":"\#(Self.admin.value)"}"#, headers: [:])
            #expect(limited.status == .tooManyRequests, "even the right token waits once the address used its attempts")
            #expect(limited.headers[.retryAfter] == "60")
        }
    }

    /// (The Host side of a reload is checked with curl against a real serve and SIGHUP, in
    /// ``ServeReloadAccessTests``: this test client always names localhost.)
    @Test func aReloadSwapsTokensAndEndsSessions() async throws {
        try await ServerFixture.run(configure: Self.tokens) { client, _, server, _ in
            let login = try await Self.post(client, "/api/login", #"{"token":"\#(Self.viewer.value)"}"#, headers: [:])
            let session = try #require(login.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            try await client.execute(uri: "/api/status", method: .get, headers: [.cookie: session]) { #expect($0.status == .ok) }

            var reloaded = LivepushConfig(cameras: [])
            reloaded.apiToken = Secret(origin: "inline", value: "admin-rotated-5e2a")
            try server.reload(reloaded)

            try await client.execute(uri: "/api/status", method: .get, headers: Self.bearer(Self.admin)) { #expect($0.status == .unauthorized, "old token") }
            try await client.execute(uri: "/api/status", method: .get, headers: [.cookie: session]) { #expect($0.status == .unauthorized, "sessions end with the tokens") }
            try await client.execute(uri: "/api/status", method: .get, headers: [.authorization: "Bearer admin-rotated-5e2a"]) { #expect($0.status == .ok) }
        }
    }

    /// Bounded fuzz of query strings and path segments on every GET route: each answer is a 2xx or
    /// a 4xx with a message, never a 5xx; the camera keeps encoding.
    @Test func fuzzedQueriesAndPathsGetClientErrors() async throws {
        var random = SplitMix64(seed: 0x7175_6572_7966_757A)
        let routes = ["/api/status", "/api/cameras/cam0", "/api/cameras/cam0/controls", "/api/cameras/cam0/snapshot.jpg", "/metrics", "/api/session", "/healthz"]
        let alphabet = Array("abcXYZ019%&=?#/.;:+-_~!$'()*,[]{}<>\"\\ \u{00e9}".unicodeScalars)
        func noise(_ count: Int) -> String {
            String(String.UnicodeScalarView((0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
        }
        let cases = (0..<300).map { round -> String in
            let route = routes[round % routes.count]
            let text = noise(1 + Int(random.next() % 40))
            let encoded = text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "#"))) ?? "x"
            switch round % 3 {
            case 0: return route + "?" + encoded
            case 1: return "/api/cameras/" + (text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? "x") + "/controls"
            default: return route + "?" + encoded + "&" + encoded + "=" + encoded
            }
        }
        try await ServerFixture.run(configure: { _ in }) { client, broadcaster, _, _ in
            for uri in cases {
                try await client.execute(uri: uri, method: .get) { response in
                    let code = response.status.code
                    #expect((200..<300).contains(code) || (400..<500).contains(code), "\(uri): \(response.status)")
                    if code >= 400, !uri.hasPrefix("/api/cameras/") || uri.hasPrefix("/api/cameras/cam0") {
                        #expect(!String(buffer: response.body).isEmpty, "\(uri): no message")
                    }
                }
            }
            #expect(await broadcaster.framesEncoded > 0)
        }
    }
}
