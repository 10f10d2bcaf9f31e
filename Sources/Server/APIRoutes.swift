import Capture
import Engine
import HTTPTypes
import Hummingbird
import MediaCore
import NIOCore

/// The JSON API under `/api/` (documented in web/openapi.yaml): what a viewer may read, and what
/// only the admin may change, each added to the group that checks that role.
struct APIRoutes {
    /// Status, cameras, controls (read), snapshots and metrics.
    func addViewerRoutes(to group: RouterGroup<ServerContext>, broadcaster: Broadcaster) {
        addStatusRoutes(to: group, broadcaster: broadcaster)
        group.get("/api/cameras/{id}") { _, context in
            let id = try context.parameters.require("id")
            guard let camera = await broadcaster.status().cameras.first(where: { $0.id == id }) else { throw EngineError.unknownCamera(id) }
            return camera
        }
        group.get("/api/cameras/{id}/controls") { _, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            return ControlsResponse(camera: camera.config.id, controls: try camera.controls())
        }
        group.get("/api/cameras/{id}/overlay") { _, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            return OverlayResponse(camera: camera.config.id, settings: camera.overlay.settings)
        }
        group.get("/api/cameras/{id}/snapshot.jpg") { request, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            let jpeg = try await camera.snapshotJPEG(mayWake: !Self.isFromAnotherSite(request))
            return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
    }

    /// `/api/status` and `/metrics`: all `stream --web` serves of the API besides latency reports.
    func addStatusRoutes(to group: RouterGroup<ServerContext>, broadcaster: Broadcaster) {
        group.get("/api/status") { _, _ in await broadcaster.status() }
        group.get("/metrics") { _, _ in
            _ = await broadcaster.status()
            let text = broadcaster.metrics?.render() ?? ""
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
    }

    /// Outputs, sources, bitrate, key frames and controls.
    func addAdminRoutes(to group: RouterGroup<ServerContext>, broadcaster: Broadcaster) {
        group.post("/api/cameras/{id}/outputs/{output}/start") { _, context in
            let (camera, output) = try await Self.cameraAndOutput(context, broadcaster)
            try await camera.startOutput(output)
            return Acknowledgement(message: "output \(output) started")
        }
        group.post("/api/cameras/{id}/outputs/{output}/stop") { _, context in
            let (camera, output) = try await Self.cameraAndOutput(context, broadcaster)
            try await camera.stopOutput(output)
            return Acknowledgement(message: "output \(output) stopped")
        }
        group.post("/api/cameras/{id}/source") { request, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            let body = try await request.decodeJSON(SourceRequest.self)
            let spec: SourceSpec
            do { spec = try SourceSpec(parsing: body.source) } catch { throw EngineError.badRequest("\(error)") }
            try APISourcePolicy.check(spec, configured: camera.config.source)
            camera.switchSource(to: spec)
            return Acknowledgement(message: "switching \(camera.config.id) to \(spec)")
        }
        group.post("/api/cameras/{id}/bitrate") { request, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            let body = try await request.decodeJSON(BitrateRequest.self)
            let bits: Int
            do { bits = try BitrateParser.bitsPerSecond(parsing: body.bitrate) } catch { throw EngineError.badRequest("\(error)") }
            guard bits >= 50_000 else { throw EngineError.badRequest("bitrate \(body.bitrate) is below 50k; streams need at least that") }
            camera.setBitrate(bits)
            return Acknowledgement(message: "bitrate set to \(bits) bit/s")
        }
        group.post("/api/cameras/{id}/keyframe") { _, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            camera.requestKeyFrame()
            return Acknowledgement(message: "keyframe requested")
        }
        group.post("/api/cameras/{id}/overlay") { request, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            let settings = try await request.decodeJSON(OverlayRequest.self).applied(to: camera.overlay.settings)
            do { try camera.setOverlay(settings) } catch { throw EngineError.badRequest("\(error)") }
            return OverlayResponse(camera: camera.config.id, settings: settings)
        }
        group.post("/api/cameras/{id}/controls") { request, context in
            let camera = try await broadcaster.camera(context.parameters.require("id"))
            let body = try await request.decodeJSON(ControlRequest.self)
            return ControlResponse(camera: camera.config.id, control: try camera.setControl(body.name, to: body.value))
        }
    }

    /// Whether a browser says another site's page made the request (`Sec-Fetch-Site: cross-site`,
    /// or `same-site`: a page on another port of the same host). Such a request may read what is
    /// there but must not make the camera work for it (an `<img>` on a page the operator visits).
    static func isFromAnotherSite(_ request: Request) -> Bool {
        guard let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased() else { return false }
        return site == "cross-site" || site == "same-site"
    }

    static func cameraAndOutput(_ context: ServerContext, _ broadcaster: Broadcaster) async throws -> (CameraRuntime, String) {
        (try await broadcaster.camera(context.parameters.require("id")), try context.parameters.require("output"))
    }
}
