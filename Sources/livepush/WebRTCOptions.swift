import ArgumentParser
import Codec
import Foundation
import Pipeline
import Server
import WebRTCTransport

/// `--web ADDR:PORT`: serve the player page (web/) and a WHEP endpoint so browsers watch the
/// stream over WebRTC; media for every viewer shares one UDP port on the same address.
struct WebRTCOptions: ParsableArguments {
    @Option(help: "Serve the WebRTC player and a WHEP endpoint (POST /whep) at ADDR:PORT, e.g. 127.0.0.1:8080.")
    var web: String?

    @Option(help: "With --web: UDP port for WebRTC media (default: any free port).")
    var webrtcPort: Int = 0

    @Option(help: "With --web: require this bearer token for WHEP POST/DELETE.")
    var whepToken: String?

    @Option(help: "With --web: directory with player.html and whep.js (default: the installed or repository web/).")
    var webRoot: String?

    @Option(help: "With --web: lowest bitrate the viewers' bandwidth estimates (REMB) may lower the shared encoder to (default 300k; 'off': keep --bitrate). The smallest estimate wins, at most one change a second, never above --bitrate.")
    var minBitrate: String?

    /// Host and port of `--web`.
    private func address() throws -> (host: String, port: Int)? {
        guard let web else { return nil }
        guard let colon = web.lastIndex(of: ":"), let port = Int(web[web.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--web wants ADDR:PORT, e.g. 127.0.0.1:8080 (got '\(web)')")
        }
        return (String(web[..<colon]), port)
    }

    /// The WHEP output when `--web` is given.
    func makeService() throws -> WHEPService? {
        guard let (host, _) = try address() else { return nil }
        var configuration = WHEPConfiguration(udpHost: host, udpPort: webrtcPort)
        configuration.bearerToken = whepToken
        return try WHEPService(configuration: configuration)
    }

    /// Lets viewers' REMB estimates cap the encoder's bitrate (see ``WHEPService/adaptBitrate``); before the pipeline starts.
    func adaptBitrate(of service: WHEPService?, encoder settings: VideoEncoderSettings) throws {
        guard let service, minBitrate != "off" else { return }
        let minimum = try minBitrate.map { try BitrateParser.bitsPerSecond(parsing: $0) }
            ?? min(REMBBitratePolicy.defaultMinimumBitsPerSecond, settings.bitrateBitsPerSecond)
        guard minimum <= settings.bitrateBitsPerSecond else {
            throw ValidationError("--min-bitrate \(minBitrate ?? "") is above --bitrate (\(settings.bitrateBitsPerSecond) bit/s)")
        }
        service.adaptBitrate(configuredBitsPerSecond: settings.bitrateBitsPerSecond, minimumBitsPerSecond: minimum)
    }

    /// What the viewers got, after the run (tests and the bench read this line).
    func printReport(of service: WHEPService?) {
        guard let service else { return }
        let latest = service.whepStatistics
        let totals = latest.totals
        var line = "  whep: \(latest.framesBroadcast) frames, \(latest.audioFramesBroadcast) audio frames broadcast"
        line += "; to viewers \(totals.videoPacketsSent) video, \(totals.audioPacketsSent) audio packets"
        line += ", \(totals.nacksReceived) NACKs, \(totals.packetsRetransmitted) retransmitted (\(totals.rtxPacketsSent) on RTX)"
        line += "; REMB \(latest.rembReceived), encoder bitrate \(latest.encoderBitrateBitsPerSecond.map(String.init) ?? "fixed") after \(latest.bitrateChanges) changes (lowest \(latest.lowestEncoderBitrateBitsPerSecond.map(String.init) ?? "-"))"
        line += "; frame rotation \(latest.lastFrameRotationDegrees)° sent as metadata"
        // One write, after what print buffered: log records on stderr (the same file in tests) cannot split it.
        fflush(nil)
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Starts the HTTP server in a task (cancel it to stop); returns once it listens.
    func serve(_ service: WHEPService?) async throws -> Task<Void, Never>? {
        guard let service, let (host, port) = try address() else { return nil }
        let server = WHEPWebServer(host: host, port: port, webRoot: LivepushServer.findWebRoot(explicit: webRoot), routes: WHEPRoutes(service: service))
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
        print("livepush: watch at http://\(host):\(bound)/player.html (WHEP http://\(host):\(bound)/whep, media udp \(service.udpAddress.map { "\($0)" } ?? "?"))")
        return task
    }
}
