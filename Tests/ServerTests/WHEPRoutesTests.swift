import Hummingbird
import HummingbirdTesting
import Server
import Testing
import WebRTCTransport

/// The WHEP HTTP surface without media: CORS, bearer token, content type, errors.
@Suite struct WHEPRoutesTests {
    static let player = "https://player.example"

    func app(token: String? = nil) throws -> some ApplicationProtocol {
        var configuration = WHEPConfiguration()
        configuration.bearerToken = token
        let router = Router()
        WHEPRoutes(service: try WHEPService(configuration: configuration), access: .init(corsOrigins: { [Self.player] })).add(to: router)
        return Application(router: router)
    }

    @Test func preflightAllowsOnlyTheListedOrigins() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/whep", method: .options, headers: [.origin: Self.player]) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == Self.player)
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
                #expect(response.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)
                #expect(response.headers[.accessControlExposeHeaders]?.contains("Location") == true)
            }
            // A page anywhere else gets no CORS headers, so its script cannot read the answer.
            for origin in ["https://evil.example", "null", "*"] {
                try await client.execute(uri: "/whep", method: .options, headers: [.origin: origin]) { response in
                    #expect(response.headers[.accessControlAllowOrigin] == nil, "\(origin)")
                    #expect(response.headers[.accessControlAllowMethods] == nil, "\(origin)")
                }
                try await client.execute(uri: "/whep", method: .post, headers: [.origin: origin, .contentType: "application/sdp"]) { response in
                    #expect(response.headers[.accessControlAllowOrigin] == nil, "\(origin)")
                }
            }
        }
    }

    @Test func bearerTokenIsRequiredWhenConfigured() async throws {
        try await app(token: "s3cret").test(.router) { client in
            try await client.execute(uri: "/whep", method: .post, headers: [.contentType: "application/sdp", .origin: Self.player]) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer")
                #expect(response.headers[.accessControlAllowOrigin] == Self.player)
            }
            try await client.execute(uri: "/whep/abc", method: .delete, headers: [.authorization: "Bearer wrong!"]) { response in
                #expect(response.status == .unauthorized)
            }
            // The right token gets past auth: the service is not started, so 503.
            try await client.execute(uri: "/whep", method: .post, headers: [.contentType: "application/sdp", .authorization: "Bearer s3cret"]) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }

    /// Wrong tokens shorter or longer than the right one are refused like any wrong token; the
    /// right one, presented after them, still gets through.
    @Test func wrongBearerTokensOfAnotherLengthAreRefused() async throws {
        try await app(token: "s3cret").test(.router) { client in
            for wrong in ["Bearer s3cre", "Bearer s3cret2", "Bearer s3cret s3cret", "Bearer ", "s3cret"] {
                try await client.execute(uri: "/whep", method: .post, headers: [.contentType: "application/sdp", .authorization: wrong]) { response in
                    #expect(response.status == .unauthorized, "\(wrong)")
                }
            }
            try await client.execute(uri: "/whep", method: .post, headers: [.contentType: "application/sdp", .authorization: "Bearer s3cret"]) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }

    @Test func offersMustBeSDP() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/whep", method: .post, headers: [.contentType: "application/json"]) { response in
                #expect(response.status == .unsupportedMediaType)
            }
        }
    }

    @Test func patchIsNotSupported() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/whep/abc", method: .patch) { response in
                #expect(response.status == .methodNotAllowed)
            }
        }
    }

    @Test func deletingAnUnknownSessionOfAStoppedServiceFails() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/whep/abc", method: .delete) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }
}
