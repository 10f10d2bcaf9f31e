import Hummingbird

/// 429 for a client address that POSTs more than `limits.requests_per_minute` WHEP offers a
/// minute: each offer costs a DTLS context and a viewer slot until it times out.
struct OfferRateLimitMiddleware: RouterMiddleware {
    let limiter: AddressRateLimiter

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        if request.method == .post, !limiter.allow(context.clientAddress) {
            throw AddressRateLimiter.refusal(context.clientAddress, tooMany: "WHEP offers")
        }
        return try await next(request, context)
    }
}
