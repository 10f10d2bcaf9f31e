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
    /// As `openssl rand -hex 16` makes them (the config refuses weaker ones).
    static let admin = Secret(origin: "inline", value: "515a601555fce5eba6a6baaede4672fe")
    static let viewer = Secret(origin: "inline", value: "3d4d0d79229730a1c805cd9d128af6f5")
    static func tokens(_ config: inout LivepushConfig) {
        config.apiToken = admin
        config.viewerToken = viewer
    }

    static let rotated = "0dd4784c5540af6cbbdc9ccd5d338f2b"
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

    /// A wrong bearer token or session cookie is a guess like a wrong login, on any route (`GET
    /// /api/session` answers which role a token has): past `requests_per_minute` wrong ones, the
    /// address gets 429 with Retry-After, the right token too, so the answer tells nothing.
    @Test func bearerAndCookieGuessesAreRateLimitedPerAddress() async throws {
        try await ServerFixture.run(configure: { config in
            Self.tokens(&config)
            config.limits.requestsPerMinutePerAddress = 5
        }) { client, _, _, _ in
            try await client.execute(uri: "/api/status", method: .get) { #expect($0.status == .unauthorized, "no credentials: not a guess") }
            for attempt in 1...3 {
                try await client.execute(uri: "/api/session", method: .get, headers: [.authorization: "Bearer guess\(attempt)"]) {
                    #expect($0.status == .unauthorized, "attempt \(attempt)")
                }
            }
            try await client.execute(uri: "/api/status", method: .get, headers: [.cookie: "livepush_session=forged"]) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true, "a dead session's cookie is cleared: \(response.headers)")
            }
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer guess5"]) { #expect($0.status == .unauthorized) }
            for uri in ["/api/session", "/api/status"] {
                try await client.execute(uri: uri, method: .get, headers: Self.bearer(Self.admin)) { response in
                    #expect(response.status == .tooManyRequests, "\(uri): even the right token waits once the address used its guesses")
                    #expect(response.headers[.retryAfter] == "60")
                    #expect(ServerFixture.errorMessage(response)?.contains("requests_per_minute") == true)
                }
            }
        }
    }

    /// 300 viewer logins (the viewer token may be widely shared) push out viewers' sessions, never
    /// the admin's.
    @Test func viewerLoginsNeverEvictTheAdmin() async throws {
        try await ServerFixture.run(configure: { config in
            Self.tokens(&config)
            config.limits.requestsPerMinutePerAddress = 10_000
        }) { client, _, _, _ in
            func logIn(_ token: Secret) async throws -> String {
                let login = try await Self.post(client, "/api/login", #"{"token":"\#(token.value)"}"#, headers: [:])
                return try #require(login.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            }
            let admin = try await logIn(Self.admin)
            var viewers: [String] = []
            for _ in 0..<300 { viewers.append(try await logIn(Self.viewer)) }
            try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: admin]) { response in
                #expect(response.status == .ok && String(buffer: response.body).contains(#""role":"admin""#), "the admin is still logged in")
            }
            #expect(try await Self.post(client, "/api/cameras/cam0/keyframe", nil, headers: [.cookie: admin]).status == .ok)
            try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: viewers[0]]) { #expect($0.status == .unauthorized, "oldest viewer dropped") }
            try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: viewers[299]]) { #expect($0.status == .ok) }
        }
    }

    /// Logins with the old token race reloads that rotate it, 2000 times (12 logins, and the reload
    /// after a random 0–300 µs, each time): no session made from an old token works once the
    /// rotation is done (the token is checked and the session made under the lock the rotation takes).
    @Test func aLoginRacingATokenRotationKeepsNoSession() async throws {
        let rounds = 2000
        let tokens = (0...rounds).map { _ in (0..<4).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined() }
        @Sendable func config(_ token: String) -> LivepushConfig {
            var config = LivepushConfig(cameras: [])
            config.apiToken = Secret(origin: "inline", value: token)
            config.limits.requestsPerMinutePerAddress = 1_000_000
            return config
        }
        try await ServerFixture.run(configure: { config in
            config.apiToken = Secret(origin: "inline", value: tokens[0])
            config.limits.requestsPerMinutePerAddress = 1_000_000
        }) { client, _, server, _ in
            var survivors: [Int] = []
            for round in 0..<rounds {
                let next = config(tokens[round + 1])
                let delay = Duration.microseconds(Int.random(in: 0...300))
                let cookies = try await withThrowingTaskGroup(of: String?.self) { group in
                    for _ in 0..<12 {
                        group.addTask {
                            let login = try await Self.post(client, "/api/login", #"{"token":"\#(tokens[round])"}"#, headers: [:])
                            return login.headers[.setCookie]?.split(separator: ";").first.map(String.init)
                        }
                    }
                    group.addTask {
                        let start = ContinuousClock.now
                        while ContinuousClock.now - start < delay {}
                        try server.reload(next)
                        return nil
                    }
                    return try await group.reduce(into: [String]()) { if let cookie = $1 { $0.append(cookie) } }
                }
                for cookie in cookies {
                    let status = try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: cookie]).status
                    if status == .ok { survivors.append(round) }
                }
            }
            #expect(survivors.isEmpty, "sessions from a rotated token still work (rounds \(survivors))")
        }
    }

    /// A token is compared whole: the admin's followed by NUL bytes (256 of them, once folded into
    /// a length difference of 0 mod 256) or by anything else is a wrong token.
    @Test func tokensAreComparedWhole() async throws {
        try await ServerFixture.run(configure: Self.tokens) { client, _, _, _ in
            for suffix in [String(repeating: "\\u0000", count: 256), "\\u0000", String(repeating: "\\u0000", count: 512)] {
                let login = try await Self.post(client, "/api/login", #"{"token":"\#(Self.admin.value)\#(suffix)"}"#, headers: [:])
                #expect(login.status == .unauthorized, "\(suffix.count / 6) NULs after the token")
            }
            #expect(try await Self.post(client, "/api/login", #"{"token":"\#(Self.admin.value)"}"#, headers: [:]).status == .ok)
        }
    }

    /// With tokens set, a page on an origin in `cors_origins` can use WHEP with the viewer's token:
    /// the browser's preflight (which never carries credentials) is answered before the role
    /// check; a preflight from another origin, and the offer itself without a token, are not.
    @Test func corsPreflightsFromAllowedOriginsPassTheRoleCheck() async throws {
        try await ServerFixture.run(configure: { config in
            Self.tokens(&config)
            config.corsOrigins = ["https://player.example"]
        }) { client, _, _, _ in
            let preflight: HTTPFields = [.origin: "https://player.example", .accessControlRequestMethod: "POST",
                                         .accessControlRequestHeaders: "authorization, content-type"]
            for uri in ["/whep/cam0", "/whep/cam0/some-session"] {
                try await client.execute(uri: uri, method: .options, headers: preflight) { response in
                    #expect(response.status == .noContent, "\(uri)")
                    #expect(response.headers[.accessControlAllowOrigin] == "https://player.example", "\(uri)")
                    #expect(response.headers[.accessControlAllowHeaders]?.contains("Authorization") == true, "\(uri)")
                }
            }
            var elsewhere = preflight
            elsewhere[.origin] = "https://evil.example"
            try await client.execute(uri: "/whep/cam0", method: .options, headers: elsewhere) { #expect($0.status == .unauthorized) }
            var bare = preflight
            bare[.accessControlRequestMethod] = nil
            try await client.execute(uri: "/whep/cam0", method: .options, headers: bare) { #expect($0.status == .unauthorized, "not a preflight") }
            let offer: HTTPFields = [.origin: "https://player.example", .contentType: "application/sdp"]
            try await client.execute(uri: "/whep/cam0", method: .post, headers: offer, body: ByteBuffer(string: "v=0")) { #expect($0.status == .unauthorized) }
            var withToken = offer
            withToken[.authorization] = "Bearer \(Self.viewer.value)"
            try await client.execute(uri: "/whep/cam0", method: .post, headers: withToken, body: ByteBuffer(string: "v=0")) { response in
                #expect(response.status != .unauthorized && response.status != .forbidden, "past the role check: \(response.status)")
                #expect(response.headers[.accessControlAllowOrigin] == "https://player.example")
            }
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
            reloaded.apiToken = Secret(origin: "inline", value: Self.rotated)
            try server.reload(reloaded)

            try await client.execute(uri: "/api/status", method: .get, headers: Self.bearer(Self.admin)) { #expect($0.status == .unauthorized, "old token") }
            try await client.execute(uri: "/api/status", method: .get, headers: [.cookie: session]) { response in
                #expect(response.status == .unauthorized, "sessions end with the tokens")
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true, "and the browser is told to drop the cookie")
            }
            try await client.execute(uri: "/api/status", method: .get, headers: [.authorization: "Bearer \(Self.rotated)"]) { #expect($0.status == .ok) }
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
