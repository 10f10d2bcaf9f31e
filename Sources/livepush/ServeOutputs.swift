import Codec
import Config
import Hummingbird
import Pipeline
import RTMP
import RTMPClient
import RTPOutput
import SRTP
import Server
import Synchronization
import WebRTCTransport

/// Plugs the network outputs into `livepush serve`: builders for the config's `rtmp`, `rtp`, `whip`
/// and `whep` outputs, and the `/whep/{camera}` route that finds each camera's current WHEP output.
enum ServeOutputs {
    static func builders(whep registry: WHEPRegistry) -> OutputBuilders {
        var builders = OutputBuilders.builtIn
        builders.register(.rtmp, audioCodec: .aac) { output, camera in
            guard case let .rtmp(url, key, _) = output.settings else { throw ServerError.badRequest("output \(output.id) is not rtmp") }
            let encoder = camera.encoder.settings(size: camera.size, framesPerSecond: camera.framesPerSecond)
            var configuration = RTMPOutputConfiguration(url: try RTMPURL(url, streamKey: key?.value),
                                                        stream: RTMPStreamDescription(encoder: encoder, rotation: camera.rotation))
            configuration.caCertificatesPath = output.caFile
            if output.adaptiveBitrate { configuration.adaptiveBitrate = .init(targetBitsPerSecond: encoder.bitrateBitsPerSecond) }
            return RTMPOutput(configuration: configuration)
        }
        builders.register(.rtp, audioCodec: .opus) { output, _ in
            guard case let .rtp(host, port, payloadType, key) = output.settings else { throw ServerError.badRequest("output \(output.id) is not rtp") }
            var configuration = RTPOutputConfiguration(destination: try RTPDestination(host: host, port: port),
                                                       keyingMaterial: try key.map { try SRTPKeyingMaterial(base64: $0.value) })
            configuration.payloadType = UInt8(payloadType)
            return try RTPStreamOutput(configuration: configuration)
        }
        builders.register(.whip, audioCodec: .opus) { output, _ in
            guard case let .whip(url, token) = output.settings else { throw ServerError.badRequest("output \(output.id) is not whip") }
            var configuration = WHIPOutputConfiguration(endpoint: try WHIPURL(url), bearerToken: token?.value)
            configuration.caCertificatesPath = output.caFile
            return try WHIPOutput(configuration: configuration)
        }
        builders.register(.whep, audioCodec: .opus) { output, camera in
            guard case let .whep(maxViewers) = output.settings else { throw ServerError.badRequest("output \(output.id) is not whep") }
            var configuration = WHEPConfiguration(udpHost: registry.udpHost, udpPort: 0)
            configuration.maximumViewers = maxViewers
            let service = try WHEPService(configuration: configuration)
            if output.adaptiveBitrate {
                let bitrate = camera.encoder.bitrateBitsPerSecond
                service.adaptBitrate(configuredBitsPerSecond: bitrate,
                                     minimumBitsPerSecond: min(REMBBitratePolicy.defaultMinimumBitsPerSecond, bitrate))
            }
            registry.set(service, for: camera.id)
            return service
        }
        return builders
    }
}

/// Each camera's current WHEP output (a stopped output is replaced by a new one on start).
final class WHEPRegistry: Sendable {
    /// The address viewers' media reaches: the HTTP listen host.
    let udpHost: String
    private let services = Mutex<[String: WHEPService]>([:])

    init(udpHost: String) { self.udpHost = udpHost }

    func set(_ service: WHEPService, for camera: String) { services.withLock { $0[camera] = service } }
    func service(for camera: String) -> WHEPService? { services.withLock { $0[camera] } }
}

/// `POST /whep/{camera}`, `DELETE /whep/{camera}/{session}` on the serve router (behind its token).
struct WHEPServeRoutes: RouteProvider {
    let registry: WHEPRegistry

    func addRoutes(to group: RouterGroup<ServerContext>, broadcaster: Broadcaster) {
        WHEPRoutes(path: "/whep/{camera}") { [registry] parameters in
            parameters.get("camera").flatMap { registry.service(for: $0) }
        }.add(to: group)
    }
}
