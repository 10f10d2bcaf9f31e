import HTTPTypes
import Hummingbird
import NIOCore
import WebRTC
import WebRTCTransport

/// The WHEP HTTP resource (RFC 9725 §4 as WHEP mirrors it): `POST /whep` with an SDP offer →
/// 201, the answer and `Location: /whep/{id}`; `DELETE /whep/{id}` ends the session; `PATCH` →
/// 405 (no trickle: the offer carries every candidate and ICE-lite accepts peer-reflexive checks);
/// `OPTIONS` answers CORS preflights. Only the origins ``Access/corsOrigins`` names get CORS
/// headers, so a page elsewhere cannot use a viewer's browser to watch; pages this server serves
/// need none. An optional bearer token guards POST/PATCH/DELETE. `POST /whep?latency=low` asks for
/// low latency (``WHEPService/createSession(offer:from:lowLatency:)``; docs/webrtc-media.md).
///
/// Generic over the router's context so `stream --web`'s player server and `livepush serve`'s router both use it.
public struct WHEPRoutes: Sendable {
    /// Finds the service a request is for from the path's parameters (e.g. `{camera}`); nil → 404.
    public typealias Lookup = @Sendable (Parameters) -> WHEPService?

    /// Who may use the endpoint besides the pages of its own origin, read per request (a reload
    /// may change it).
    public struct Access: Sendable {
        /// Origins (`https://player.example`) whose pages may call the endpoint (CORS).
        public var corsOrigins: @Sendable () -> Set<String>
        /// Viewers one client address may have at once; nil: no per-address limit.
        public var viewersPerAddress: @Sendable () -> Int?

        public init(corsOrigins: @escaping @Sendable () -> Set<String> = { [] }, viewersPerAddress: @escaping @Sendable () -> Int? = { nil }) {
            self.corsOrigins = corsOrigins
            self.viewersPerAddress = viewersPerAddress
        }
    }

    public let path: String
    private let lookup: Lookup
    private let access: Access
    /// `?latency=` this value asks for low latency.
    static let lowLatencyValue = "low"
    /// The largest offer accepted (browsers send a few kB).
    static let maximumOfferBytes = 64 * 1024

    /// One fixed service at `path`.
    public init(service: WHEPService, path: String = "/whep", access: Access = Access()) {
        self.init(path: path, access: access) { _ in service }
    }

    /// Services found per request: `livepush serve` routes `/whep/{camera}` to the camera's current
    /// WHEP output, which is replaced when the output is stopped and started from the API.
    public init(path: String, access: Access = Access(), lookup: @escaping Lookup) {
        self.path = path
        self.access = access
        self.lookup = lookup
    }

    public func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.on(RouterPath(path), method: .options) { request, _ in withCORS(Self.preflight(), for: request) }
        router.on(RouterPath(path + "/{id}"), method: .options) { request, _ in withCORS(Self.preflight(), for: request) }
        router.post(RouterPath(path)) { request, context in
            let client = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
            var limit: WHEPClientLimit?
            if let client, let maximum = access.viewersPerAddress() { limit = WHEPClientLimit(address: client, maximumViewers: maximum) }
            return withCORS(await create(request, service: lookup(context.parameters), client: limit), for: request)
        }
        router.delete(RouterPath(path + "/{id}")) { request, context in
            withCORS(await delete(request, service: lookup(context.parameters), id: context.parameters.get("id") ?? ""), for: request)
        }
        router.patch(RouterPath(path + "/{id}")) { request, context in
            guard let service = lookup(context.parameters) else { return withCORS(Self.notFound(), for: request) }
            return withCORS(authorized(request, by: service)
                ? Self.response(.methodNotAllowed, text: "trickle ICE and ICE restarts are not supported: POST a new offer")
                : Self.unauthorized(), for: request)
        }
    }

    /// Adds CORS headers when the request's Origin is one ``Access/corsOrigins`` allows.
    private func withCORS(_ response: Response, for request: Request) -> Response {
        guard let origin = request.headers[.origin], access.corsOrigins().contains(origin.lowercased()) else { return response }
        var response = response
        response.headers.append(contentsOf: Self.corsHeaders)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
        return response
    }

    static func notFound() -> Response { response(.notFound, text: "no WHEP output here: add a whep output to this camera and start it") }

    private func create(_ request: Request, service: WHEPService?, client: WHEPClientLimit?) async -> Response {
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
            let lowLatency = request.uri.queryParameters.get("latency") == Self.lowLatencyValue
            let (id, answer) = try await service.createSession(offer: String(buffer: body), from: client, lowLatency: lowLatency)
            let headers: HTTPFields = [.contentType: "application/sdp", .location: "\(request.uri.path)/\(id)"]
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
        // By digest, in constant time: neither the matching prefix nor the token's length shows.
        return TokenDigest(of: request.headers[.authorization] ?? "") == TokenDigest(of: "Bearer \(token)")
    }

    static let corsHeaders: HTTPFields = [
        .accessControlAllowMethods: "POST, DELETE, PATCH, OPTIONS",
        .accessControlAllowHeaders: "Content-Type, Authorization, If-Match",
        .accessControlExposeHeaders: "Location, Link, ETag",
    ]

    static func preflight() -> Response {
        Response(status: .noContent, headers: [HTTPField.Name("Accept-Post")!: "application/sdp"])
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
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
