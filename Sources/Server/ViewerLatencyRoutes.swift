import Engine
import Foundation
import Hummingbird

/// `POST …/viewer-latency`: a viewer's page posts the glass-to-glass latency it measured
/// (docs/capture-time.md), at most every few seconds and only when the viewer ticked the page's
/// consent box, which the body must say (`"consent": true`, else 403). The route sits behind the
/// viewer's role like WHEP itself, and behind the Host and Origin checks of every route (same-origin
/// pages only, JSON only); each address may post ``perMinute`` times a minute (429 past it); the body
/// is at most ``maximumBodyBytes`` and every figure is checked (``ViewerLatencyReport``). The figures
/// go to the camera's WHEP output in ``ViewerLatencyBook``: the camera comes from the path or is the
/// only one, the output is the camera's own, so nothing in the request becomes a metric label.
struct ViewerLatencyRoutes: Sendable {
    let broadcaster: Broadcaster
    let limiter: AddressRateLimiter
    /// One report every 5 s from a few tabs of one address, with room to spare.
    static let perMinute = 30
    /// 300 figures of a few characters each, and the rest of the body.
    static let maximumBodyBytes = 8 * 1024

    init(broadcaster: Broadcaster, limiter: AddressRateLimiter = AddressRateLimiter(perMinute: Self.perMinute)) {
        self.broadcaster = broadcaster
        self.limiter = limiter
    }

    /// The body: `{"consent": true, "viewer": "…", "clock": "capture_time", "latencies_ms": [41.2, …]}`.
    struct Body: Decodable {
        let consent: Bool
        let viewer: String
        let clock: String
        let latenciesMilliseconds: [Double]

        enum CodingKeys: String, CodingKey {
            case consent, viewer, clock
            case latenciesMilliseconds = "latencies_ms"
        }
    }

    /// `POST path`, for the camera `camera` picks from the path's parameters.
    func add(to group: RouterGroup<ServerContext>, path: String, camera: @escaping @Sendable (Parameters) throws -> String) {
        group.post(RouterPath(path)) { request, context in
            guard limiter.allow(context.clientAddress) else { throw AddressRateLimiter.refusal(context.clientAddress, tooMany: "latency reports") }
            let body: Body
            do {
                let buffer = try await request.body.collect(upTo: Self.maximumBodyBytes)
                body = try JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
            } catch let error as DecodingError {
                throw HTTPError(.badRequest, message: "the JSON body does not match: \(JSONErrorMiddleware<ServerContext>.describe(error))")
            }
            guard body.consent else {
                throw HTTPError(.forbidden, message: "the viewer did not consent to sharing their latency: send \"consent\": true only when they did")
            }
            let report: ViewerLatencyReport
            do { report = try ViewerLatencyReport(viewer: body.viewer, clock: body.clock, latenciesMilliseconds: body.latenciesMilliseconds) } catch {
                throw HTTPError(.badRequest, message: "\(error)")
            }
            let id = try camera(context.parameters)
            let runtime = try await broadcaster.camera(id)
            guard let output = runtime.config.outputs.first(where: { $0.kind == .whep })?.id else {
                throw HTTPError(.notFound, message: "camera '\(id)' has no whep output: its viewers have no latency to report")
            }
            guard broadcaster.viewerLatency.record(report, for: .init(camera: id, output: output)) else {
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: "15"], message: "as many viewers report on \(id)/\(output) as are kept: try again later")
            }
            return Response(status: .noContent)
        }
    }
}
