import ArgumentParser
import Capture
import Config
import Engine
import Foundation
import LibAV
import Logging
import ProcessFootprint
import Server
import ServiceLifecycle

/// `livepush serve`: the headless broadcaster — cameras from a YAML config (or the embedded
/// default), the dashboard, JSON API and metrics over HTTP, systemd notify, SIGHUP reload.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the headless broadcaster: cameras from a YAML config, web dashboard, HTTP API, /metrics.",
        discussion: "Without --config: the first camera found (else the test pattern), libx264, dashboard at http://127.0.0.1:8080.")

    @Option(help: "YAML config file (see deploy/examples/); validate it with `livepush check-config`.")
    var config: String?

    @Option(help: "Listen on ADDR:PORT instead of the config's `listen` (port 0 picks a free one).")
    var listen: String?

    @Option(help: "Directory with the dashboard files (index.html, app.js, style.css); found automatically by default.")
    var webRoot: String?

    @Option(help: "Log format: text or json (one JSON object per line on stderr).")
    var logFormat: String = "text"

    func run() async throws {
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format must be text or json") }
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label -> any LogHandler in json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label) }
        FFmpegLogging.quiet()
        let logger = Logger(label: "livepush.serve")
        ProcessFootprint.atStart(logger: logger)

        var loaded = try loadConfig()
        if let listen {
            guard let address = ListenAddress(parsing: listen) else { throw ValidationError("--listen must be HOST:PORT, e.g. 127.0.0.1:8080") }
            loaded.listen = address
        }
        // WebRTC media goes to the host the dashboard is served on (0.0.0.0 → every interface).
        let factory = OutputFactory(whep: WHEPRegistry(udpHost: loaded.listen.host), logger: logger) { output, sdp in
            logger.info("RTP stream described", metadata: ["output": "\(output.id)", "sdp": "\(sdp)"])
        }
        // Each camera, once open and before x264's first frames allocate its buffers, sheds the
        // file pages opening it touched, and again those its first frame touched (as `stream`
        // does), so they are not resident together.
        let broadcaster = Broadcaster(config: loaded, factory: factory, metrics: EngineMetrics(),
                                      beforeFirstFrames: { ProcessFootprint.release(logger: logger) }, logger: logger)
        // Hummingbird's start-up notes ("Serving files from …", "Server started …") stay out of the way:
        // the first line a user sees is where the dashboard is.
        var httpLogger = Logger(label: "livepush.http")
        httpLogger.logLevel = .notice
        let server: LivepushServer
        do { server = try LivepushServer(broadcaster: broadcaster, config: loaded, webRoot: LivepushServer.findWebRoot(explicit: webRoot), logger: httpLogger) } catch {
            throw ValidationError("\(error)")
        }
        if server.exposureWarning != nil, !loaded.openAccess { throw ValidationError(Self.refusal(loaded.listen)) }
        if let warning = server.exposureWarning {
            logger.critical("\(warning)")
            FileHandle.standardError.write(Data((warning + "\n").utf8))
        }
        if server.webRoot == nil { logger.warning("dashboard files not found; pass --web-root DIR (the API still works)") }
        let sources = loaded.cameras.map { "\($0.id)=\($0.source)" }.joined(separator: ", ")
        let application = try server.makeApplication { address in
            FileHandle.standardOutput.write(Data("livepush: dashboard at \(server.scheme)://\(address)/  (API /api/status, metrics /metrics; cameras: \(sources))\n".utf8))
        }
        let path = config, boundAddress = loaded.listen
        // A reload applies the server's side (tokens, hosts, origins, certificate) before the
        // cameras'; a config that would leave a public address without a token is refused whole.
        let service = BroadcastService(broadcaster: broadcaster,
                                       reloadConfig: path.map { path in { @Sendable in
                                           let config = try Self.load(path: path, listen: boundAddress)
                                           if boundAddress.isAllInterfacesOrPublic, config.apiToken == nil, !config.openAccess {
                                               throw ValidationError(Self.refusal(boundAddress))
                                           }
                                           try server.reload(config)
                                           return config
                                       } },
                                       logger: logger) {
            // The cameras are up: shed what opening them touched (libavformat's libraries, x264,
            // the muxers) now, before the encoders' buffers add to it, not at the schedule's first
            // release 5 s in (issue 28, as `stream` does).
            ProcessFootprint.release(logger: logger)
        }
        // Named, as ``ServiceGroupConfiguration/ServiceConfiguration/endingTheGroup(_:named:)`` says why.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: application, serviceName: "http"), .endingTheGroup(service, named: "broadcast")],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        // The config is read and the server built: shed what that touched (the config parser, the
        // HTTP stack's set-up) before the cameras open, so it is not resident under libavformat's
        // libraries, x264's set-up and the WebRTC certificate (issue 28).
        ProcessFootprint.release(logger: logger)
        // Cameras open and the server binds within the first second (each camera's open and first
        // frame shed their own: `beforeFirstFrames`); a second in, shed what the first frames
        // touched once (x264's first-frame set-up, the muxers' headers), and follow up 10 s later.
        let trim = ProcessFootprint.keepReleasing(settle: .seconds(1), logger: logger)
        defer { trim.cancel() }
        try await group.run()
    }

    /// Why serve will not listen on `address` without a token, with the lines that fix it.
    static func refusal(_ address: ListenAddress) -> String {
        """
        refusing to listen on \(address) without an api_token: anyone on the network could stop \
        your outputs and watch the camera. Add to the config:
          api_token: env:LIVEPUSH_TOKEN
          viewer_token: env:LIVEPUSH_VIEWER_TOKEN   # optional: a token that can only watch
        (and export them), or listen on 127.0.0.1, or accept it with:
          auth: none
        """
    }

    private func loadConfig() throws -> LivepushConfig {
        if let config { return try Self.load(path: config, listen: nil) }
        let camera = V4L2Discovery.cameras().cameras.first?.path
        return LivepushConfig.embeddedDefault(firstCamera: camera)
    }

    /// Loads a file; a reload keeps the address the server is already bound to.
    static func load(path: String, listen: ListenAddress?) throws -> LivepushConfig {
        do {
            var config = try ConfigParser.load(path: path)
            if let listen { config.listen = listen }
            return config
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
