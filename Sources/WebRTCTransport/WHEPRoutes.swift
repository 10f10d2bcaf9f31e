import HTTPTypes
import Hummingbird
import NIOCore

/// The WHEP HTTP resource (RFC 9725 §4 as WHEP mirrors it): `POST /whep` with an SDP offer →
/// 201, the answer and `Location: /whep/{id}`; `DELETE /whep/{id}` ends the session; `PATCH` →
/// 405 (no trickle: the offer carries every candidate and ICE-lite accepts peer-reflexive checks);
/// `OPTIONS` answers CORS preflights, and every answer carries CORS headers so a player on
/// another origin can use the endpoint. An optional bearer token guards POST/PATCH/DELETE.
///
/// Generic over the router's context so `stream --web`'s player server and `livepush serve`'s router both use it.
public struct WHEPRoutes: Sendable {
    /// Finds the service a request is for from the path's parameters (e.g. `{camera}`); nil → 404.
    public typealias Lookup = @Sendable (Parameters) -> WHEPService?

    public let path: String
    private let lookup: Lookup
    /// The largest offer accepted (browsers send a few kB).
    static let maximumOfferBytes = 64 * 1024

    /// One fixed service at `path`.
    public init(service: WHEPService, path: String = "/whep") {
        self.init(path: path) { _ in service }
    }

    /// Services found per request: `livepush serve` routes `/whep/{camera}` to the camera's current
    /// WHEP output, which is replaced when the output is stopped and started from the API.
    public init(path: String, lookup: @escaping Lookup) {
        self.path = path
        self.lookup = lookup
    }

    public func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.on(RouterPath(path), method: .options) { _, _ in Self.preflight() }
        router.on(RouterPath(path + "/{id}"), method: .options) { _, _ in Self.preflight() }
        router.post(RouterPath(path)) { request, context in await create(request, service: lookup(context.parameters)) }
        router.delete(RouterPath(path + "/{id}")) { request, context in
            await delete(request, service: lookup(context.parameters), id: context.parameters.get("id") ?? "")
        }
        router.patch(RouterPath(path + "/{id}")) { request, context in
            guard let service = lookup(context.parameters) else { return Self.notFound() }
            return authorized(request, by: service)
                ? Self.response(.methodNotAllowed, text: "trickle ICE and ICE restarts are not supported: POST a new offer")
                : Self.unauthorized()
        }
    }

    static func notFound() -> Response { response(.notFound, text: "no WHEP output here: add a whep output to this camera and start it") }

    private func create(_ request: Request, service: WHEPService?) async -> Response {
        guard let service else { return Self.notFound() }
        guard authorized(request, by: service) else { return Self.unauthorized() }
        let contentType = request.headers[.contentType] ?? ""
        guard contentType.lowercased().hasPrefix("application/sdp") else {
            return Self.response(for: .unsupportedMediaType(contentType))
        }
        guard let body = try? await request.body.collect(upTo: Self.maximumOfferBytes) else {
            return Self.response(.contentTooLarge, text: "the SDP offer exceeds \(Self.maximumOfferBytes) bytes")
        }
        do {
            let (id, answer) = try await service.createSession(offer: String(buffer: body))
            var headers = Self.corsHeaders
            headers[.contentType] = "application/sdp"
            headers[.location] = "\(request.uri.path)/\(id)"
            return Response(status: .created, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: answer)))
        } catch {
            return Self.response(for: error)
        }
    }

    private func delete(_ request: Request, service: WHEPService?, id: String) async -> Response {
        guard let service else { return Self.notFound() }
        guard authorized(request, by: service) else { return Self.unauthorized() }
        do {
            try await service.deleteSession(id: id)
            return Self.response(.ok, text: "")
        } catch {
            return Self.response(for: error)
        }
    }

    private func authorized(_ request: Request, by service: WHEPService) -> Bool {
        guard let token = service.configuration.bearerToken else { return true }
        let presented = Array((request.headers[.authorization] ?? "").utf8), expected = Array("Bearer \(token)".utf8)
        // Compare every byte so the time taken does not reveal the matching prefix.
        guard presented.count == expected.count else { return false }
        return zip(presented, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static let corsHeaders: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlAllowMethods: "POST, DELETE, PATCH, OPTIONS",
        .accessControlAllowHeaders: "Content-Type, Authorization, If-Match",
        .accessControlExposeHeaders: "Location, Link, ETag",
    ]

    static func preflight() -> Response {
        var headers = corsHeaders
        headers[HTTPField.Name("Accept-Post")!] = "application/sdp"
        return Response(status: .noContent, headers: headers)
    }

    static func unauthorized() -> Response {
        var response = response(.unauthorized, text: "missing or wrong bearer token")
        response.headers[.wwwAuthenticate] = "Bearer"
        return response
    }

    static func response(for error: WHEPError) -> Response {
        response(HTTPResponse.Status(code: error.httpStatus), text: error.description)
    }

    static func response(_ status: HTTPResponse.Status, text: String) -> Response {
        var headers = corsHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
