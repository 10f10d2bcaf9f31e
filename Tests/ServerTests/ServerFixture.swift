import Capture
import Config
import Foundation
import Hummingbird
import HummingbirdTesting
import Engine
import MediaCore
import Server
import TestSupport

/// A real broadcaster (test pattern at 320x240, a recording output in a temporary directory)
/// behind the real router, driven through Hummingbird's in-process test client.
enum ServerFixture {
    static let cameraID = "cam0"

    static func config(directory: TemporaryDirectory, token: Secret? = nil, bitrate: Int = 300_000, source: SourceSpec = .testPattern) -> LivepushConfig {
        LivepushConfig(apiToken: token, cameras: [camera(id: cameraID, directory: directory, bitrate: bitrate, source: source)])
    }

    static func camera(id: String, directory: TemporaryDirectory, bitrate: Int = 300_000, source: SourceSpec = .testPattern) -> CameraConfig {
        CameraConfig(id: id, source: source, size: VideoSize(width: 320, height: 240), framesPerSecond: 15,
                     encoder: EncoderConfig(name: "libx264", bitrateBitsPerSecond: bitrate, keyframeIntervalSeconds: 1, preset: "ultrafast"),
                     outputs: [OutputConfig(id: "record", settings: .record(path: directory.file("\(id).mp4"), segmentSeconds: nil, retentionSeconds: nil))])
    }

    static var webRoot: String { Repository.root.appendingPathComponent("web").path }

    /// Runs `body` against a started broadcaster; always stops it afterwards.
    static func run(token: Secret? = nil, source: SourceSpec = .testPattern,
                    _ body: @Sendable (any TestClientProtocol, Broadcaster, String) async throws -> Void) async throws {
        try await run(configure: { config in
            config.apiToken = token
            config.cameras[0].source = source
        }) { client, broadcaster, _, directory in try await body(client, broadcaster, directory) }
    }

    /// Runs `body` against a started broadcaster behind a server made from the fixture's config as
    /// `configure` changes it; `.live` puts a real TCP listener on 127.0.0.1 between them (client
    /// addresses, timeouts). Always stops the broadcaster afterwards.
    static func run(configure: (inout LivepushConfig) -> Void, mode: TestingSetup = .router,
                    _ body: @Sendable (any TestClientProtocol, Broadcaster, LivepushServer, String) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        var config = config(directory: directory)
        configure(&config)
        let broadcaster = Broadcaster(config: config, metrics: EngineMetrics())
        try await broadcaster.start()
        let server = try LivepushServer(broadcaster: broadcaster, config: config, webRoot: webRoot)
        let directoryPath = directory.path
        let app = Application(router: server.makeRouter())
        do {
            try await app.test(mode) { client in try await body(client, broadcaster, server, directoryPath) }
        } catch {
            await broadcaster.stop()
            throw error
        }
        await broadcaster.stop()
        withExtendedLifetime(directory) {}
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: response.body))
    }

    /// Hummingbird's error body: `{"error": {"message": "…"}}`.
    static func errorMessage(_ response: TestResponse) -> String? {
        struct Body: Decodable { struct Inner: Decodable { let message: String }; let error: Inner }
        return try? JSONDecoder().decode(Body.self, from: Data(buffer: response.body)).error.message
    }
}

extension Data {
    init(buffer: ByteBuffer) { self.init(buffer.readableBytesView) }
}
