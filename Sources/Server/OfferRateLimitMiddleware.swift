import Hummingbird

/// 429 for a client address that POSTs more than `limits.requests_per_minute` WHEP offers a
/// minute: each offer costs a DTLS context and a viewer slot until it times out.
struct OfferRateLimitMiddleware: RouterMiddleware {
    let limiter: AddressRateLimiter

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        if request.method == .post, !limiter.allow(context.clientAddress) {
            throw HTTPError(.tooManyRequests, headers: [.retryAfter: "60"],
                            message: "too many WHEP offers from \(context.clientAddress) (limits.requests_per_minute): wait a minute")
        }
        return try await next(request, context)
    }
}
