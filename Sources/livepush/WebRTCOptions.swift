import ArgumentParser
import Config
import Engine
import Foundation
import Server
import WebRTCTransport

/// `--web ADDR:PORT`: serve the player page (web/) and a WHEP endpoint so browsers watch the
/// stream over WebRTC; media for every viewer shares one UDP port on the same address.
struct WebRTCOptions: ParsableArguments {
    static let tokenEnvironmentVariable = "LIVEPUSH_WHEP_TOKEN"

    @Option(help: "Serve the WebRTC player and a WHEP endpoint (POST /whep) at ADDR:PORT, e.g. 127.0.0.1:8080.")
    var web: String?

    @Option(help: "With --web: UDP port for WebRTC media (default: any free port).")
    var webrtcPort: Int = 0

    @Option(help: "With --web: require this bearer token for WHEP POST/DELETE.")
    var whepToken: String?

    @Option(help: "With --web: close a viewer whose RTCP receiver reports stop advancing for this long (default 5s).")
    var whepStallTimeout: String?

    @Option(help: "With --web: directory with player.html and whep.js (default: the installed or repository web/).")
    var webRoot: String?

    @Option(help: "With --web: let the viewers' bandwidth estimates (transport-cc, REMB) lower the shared encoder down to this bitrate (with --adaptive-bitrate alone: 300k, or --bitrate when lower); 'off' (the default, as in a config file): keep --bitrate, so a viewer on weak Wi-Fi does not lower what the recording and the other outputs get. The smallest estimate wins, at most one change a second, never above --bitrate.")
    var minBitrate: String?

    @Option(help: "With --web: most viewers at once (default \(OutputDefaults.whepMaxViewers), sized for a Raspberry Pi's uplink; at most \(OutputDefaults.whepMaxViewersRange.upperBound)).")
    var maxViewers: Int?

    /// `--whep-token` is held to the config's rule for tokens (``TokenStrength``): viewers' guesses
    /// are rate limited per address only, so a short or patterned token falls to many addresses.
    func validate() throws {
        if let whepToken, let weakness = TokenStrength.weakness(of: whepToken, key: "--whep-token", forms: "as --whep-token TOKEN") {
            throw ValidationError(weakness)
        }
    }

    /// Host and port of `--web`.
    func address() throws -> ListenAddress? {
        guard let web else { return nil }
        guard let address = ListenAddress(parsing: web) else {
            throw ValidationError("--web wants ADDR:PORT, e.g. 127.0.0.1:8080 (got '\(web)')")
        }
        guard !address.isAllInterfacesOrPublic || whepToken != nil else {
            throw ValidationError("""
                refusing to serve --web on \(address) without a token: anyone on the network could watch the camera. \
                Add --whep-token TOKEN (viewers open player.html?token=TOKEN), or use --web 127.0.0.1:\(address.port)
                """)
        }
        return address
    }

    /// The `whep:` output when `--web` is given (the player page shares the camera's one encode).
    /// Only the keys the flags give are written: the rest are ``OutputDefaults``, as in a file.
    /// The viewers adapt the encoder with `adaptiveBitrate` (`--adaptive-bitrate`) or a `--min-bitrate` floor.
    func output(adaptiveBitrate: Bool, into draft: inout ConfigDraft) throws -> ConfigDraft.Mapping? {
        guard try address() != nil else {
            if maxViewers != nil || minBitrate != nil { throw ValidationError("--max-viewers and --min-bitrate describe the WHEP viewers: add --web ADDR:PORT") }
            return nil
        }
        var whep = ConfigDraft.Mapping()
        whep.set("max_viewers", maxViewers.map(String.init))
        if webrtcPort != 0 { whep.set("udp_port", "\(webrtcPort)") }
        whep.set("stall_timeout", whepStallTimeout)
        whep.set("token", whepToken.map { draft.secret($0, name: Self.tokenEnvironmentVariable) })
        let floor = minBitrate == "off" ? nil : minBitrate
        if floor != nil || (adaptiveBitrate && minBitrate != "off") {
            whep.set("adaptive_bitrate", "true")
            whep.set("min_bitrate", floor)
        }
        return .output("whep", whep)
    }

    /// Serves the player page, `POST /whep` for `camera`, its status, `/metrics` and its viewers'
    /// latency reports in a task (cancel it to stop); returns once it listens.
    func serve(camera: String, broadcaster: Broadcaster) async throws -> Task<Void, Never>? {
        guard let address = try address() else { return nil }
        let perAddress = HTTPLimits().whepViewersPerAddress
        let registry = broadcaster.factory.whep
        let routes = WHEPRoutes(path: "/whep", access: .init(viewersPerAddress: { perAddress })) { _ in registry.service(for: camera) }
        let server = PlayerServer(host: address.host, port: address.port, webRoot: LivepushServer.findWebRoot(explicit: webRoot), routes: routes,
                                  status: PlayerServer.Status(broadcaster: broadcaster, camera: camera, token: whepToken))
        let (listening, continuation) = AsyncStream<Int>.makeStream()
        let task = Task {
            do {
                try await server.run { port in continuation.yield(port) }
            } catch {
                print("livepush: web server failed: \(error)")
            }
            continuation.finish()
        }
        guard let bound = await listening.first(where: { _ in true }) else { throw ValidationError("cannot serve --web \(web ?? "")") }
        let media = registry.service(for: camera)?.udpAddress.map { "\($0)" } ?? "?"
        let origin = "http://" + ListenAddress(host: address.host, port: bound).description
        print("livepush: watch at \(origin)/player.html (WHEP \(origin)/whep, media udp \(media))")
        return task
    }
}
