import Capture
import Engine
import Foundation
import Hummingbird

/// Turns every failure under the router into a 4xx/5xx answer with a JSON body
/// `{"error": {"message": "…"}}` (Hummingbird's `HTTPError` format), so a bad request never
/// crashes the server and a client always learns what to change.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as EngineError {
            throw HTTPError(error.status, message: error.description)
        } catch let error as HTTPError {
            guard error.body == nil else { throw error }
            throw HTTPError(error.status, headers: error.headers, message: Self.message(for: error.status, request: request))
        } catch let error as CaptureError {
            throw HTTPError(Self.status(for: error), message: error.description)
        } catch let error as DecodingError {
            throw HTTPError(.badRequest, message: "the JSON body does not match: \(Self.describe(error))")
        } catch let error as HTTPResponseError {
            throw error
        } catch {
            throw HTTPError(.internalServerError, message: "\(error)")
        }
    }

    static func message(for status: HTTPResponse.Status, request: Request) -> String {
        switch status {
        case .notFound: return "no route for \(request.method) \(request.uri.path); see /openapi.yaml"
        case .methodNotAllowed: return "\(request.method) is not allowed on \(request.uri.path); see /openapi.yaml"
        default: return status.reasonPhrase
        }
    }

    static func status(for error: CaptureError) -> HTTPResponse.Status {
        switch error {
        case .deviceNotFound, .deviceUnplugged: return .notFound
        case .deviceBusy, .permissionDenied: return .conflict
        case .invalidSetting, .unknownSource: return .badRequest
        default: return .internalServerError
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): return "missing key '\(key.stringValue)'"
        case let .typeMismatch(type, context): return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' must be \(type)"
        case let .valueNotFound(_, context): return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is null"
        case .dataCorrupted: return "not valid JSON"
        @unknown default: return "\(error)"
        }
    }
}
