import Hummingbird
import WebRTC

/// `stream --web`'s viewer check for its status and latency routes: with a token (`--whep-token`),
/// a request must carry `Authorization: Bearer TOKEN` as a WHEP offer must (401 otherwise); without
/// one the server listens on loopback only (``WebRTCOptions`` refuses otherwise) and lets all through.
struct BearerTokenMiddleware: RouterMiddleware {
    let token: String?

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        guard let token else { return try await next(request, context) }
        // By digest, in constant time, as WHEPRoutes compares it.
        guard TokenDigest(of: request.headers[.authorization] ?? "") == TokenDigest(of: "Bearer \(token)") else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "send 'Authorization: Bearer TOKEN' with the --whep-token the viewers use")
        }
        return try await next(request, context)
    }
}
