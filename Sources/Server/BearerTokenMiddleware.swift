import Hummingbird

/// Requires `Authorization: Bearer TOKEN` on every request it guards (the API, metrics, WHEP).
/// The comparison takes the same time wherever the first difference is.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let header = request.headers[.authorization] ?? ""
        guard header.hasPrefix("Bearer "), Self.constantTimeEqual(Array(header.utf8.dropFirst(7)), Array(token.utf8)) else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                            message: "send the API token as 'Authorization: Bearer TOKEN' (api_token in the config)")
        }
        return try await next(request, context)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
