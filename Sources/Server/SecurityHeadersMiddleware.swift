import HTTPTypes
import Hummingbird

/// Headers on every answer that keep other sites from putting the pages to their own use:
/// - `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`: no page may frame the dashboard and
///   trick a click on Stop (clickjacking). Old browsers read the first, current ones the second.
/// - CSP `default-src 'self'`: the pages load scripts, styles, images and connections only from
///   this server (the dashboard's snapshot is a `blob:` URL; no inline script or style anywhere),
///   so injected markup could not run or send anything elsewhere.
/// - `X-Content-Type-Options: nosniff`: a snapshot or a JSON answer is never run as a script.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the pages may connect besides their own origin: none for `serve`'s dashboard; any
    /// http(s) origin for `stream --web`'s player, whose `?whep=URL` may name another server.
    let connectSources: String

    /// `serve`'s dashboard and API.
    static var dashboard: Self { Self(connectSources: "'self'") }
    /// `stream --web`'s player.
    static var player: Self { Self(connectSources: "'self' http: https:") }

    var headers: HTTPFields {
        [
            HTTPField.Name("X-Frame-Options")!: "DENY",
            .contentSecurityPolicy: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
                + "media-src 'self' blob:; connect-src \(connectSources); object-src 'none'; base-uri 'none'; "
                + "form-action 'self'; frame-ancestors 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            response.headers.append(contentsOf: headers)
            return response
        } catch let error as HTTPError {
            // Error pages get them too (a 401 page is framed as easily as the dashboard).
            var headers = error.headers
            headers.append(contentsOf: self.headers)
            throw HTTPError(error.status, headers: headers, message: error.body)
        }
    }
}
