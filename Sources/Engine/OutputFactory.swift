import Codec
import Config
import Foundation
import Logging
import MediaCore
import Output
import Recording
import RTMP
import RTMPClient
import RTPOutput
import SRTOutput
import SRTP
import WebRTCTransport

/// Turns a config's output into a running ``StreamOutput``: the one place each kind (record,
/// rtmp, rtp, whep, whip, srt) is built with every setting, for `livepush stream` and `livepush serve`
/// alike. Each output sits in a ``ControlledOutput`` that calls back here on every start, so an
/// output stopped and started from the API reconnects or opens a new file.
public struct OutputFactory: Sendable {
    /// Each camera's current WHEP endpoint, for the HTTP routes that viewers reach.
    public let whep: WHEPRegistry
    /// Told the SDP of each RTP output once its first frame is out (the front end prints it).
    public let onRTPDescription: @Sendable (_ output: OutputConfig, _ sdp: String) -> Void
    private let logger: Logger

    public init(whep: WHEPRegistry, logger: Logger = Logger(label: "livepush.outputs"),
                onRTPDescription: @escaping @Sendable (_ output: OutputConfig, _ sdp: String) -> Void = { _, _ in }) {
        self.whep = whep
        self.logger = logger
        self.onRTPDescription = onRTPDescription
    }

    /// The output wrapped for start and stop from the API; nothing connects until it starts (with
    /// `start: false`, not even when its camera starts).
    func make(_ output: OutputConfig, for camera: CameraConfig) -> ControlledOutput {
        ControlledOutput(id: output.id, kind: output.kind.rawValue, target: output.maskedTarget, audioCodec: Self.audioCodec(of: output),
                         carriesRotationMetadata: output.kind == .whep,
                         servesAllRenditions: output.kind == .whep || !output.tracks.isEmpty,
                         startsStopped: !output.startsWithCamera, ingest: output.ingest) {
            try self.build(output, for: camera)
        }
    }

    /// What each kind carries: AAC where FLV and MP4 expect it, Opus on RTP and WebRTC; SRT's
    /// transport stream either (AAC unless `audio_codec: opus`).
    static func audioCodec(of output: OutputConfig) -> AudioCodec {
        if case let .srt(settings) = output.settings { return settings.audioCodec }
        switch output.kind {
        case .record, .rtmp, .srt: return .aac
        case .rtp, .whep, .whip: return .opus
        }
    }

    /// The sender for `output`, not started (internal: tests read the settings each kind is given).
    /// Each is built for the rendition it takes: its size, rate and bitrate, not the camera's `encoder:`.
    func build(_ output: OutputConfig, for camera: CameraConfig) throws -> any StreamOutput {
        let rendition = Self.rendition(of: output, in: camera)
        switch output.settings {
        case let .record(path, segment, _):
            return RecordingOutput(settings: RecordingSettings(path: path, segmentSeconds: segment))
        case let .rtmp(url, key, _):
            return try rtmp(output, url: url, key: key, camera: camera)
        case let .rtp(host, port, payloadType, key):
            return try rtp(output, host: host, port: port, payloadType: payloadType, key: key)
        case let .whep(maxViewers):
            return try whep(output, maxViewers: maxViewers, camera: camera)
        case let .whip(url, token):
            return try whip(output, url: url, token: token)
        case let .srt(settings):
            return srt(output, settings: settings, rendition: rendition)
        }
    }

    /// The rendition `output` takes: the one it names, else the camera's first (top).
    static func rendition(of output: OutputConfig, in camera: CameraConfig) -> RenditionConfig {
        camera.effectiveRenditions[camera.renditionIndex(of: output)]
    }

    private func srt(_ output: OutputConfig, settings: SRTSettings, rendition: RenditionConfig) -> SRTStreamOutput {
        var configuration = SRTOutputConfiguration(host: settings.host, port: settings.port, maskedTarget: output.maskedTarget)
        configuration.mode = settings.mode == .listener ? .listener : .caller
        configuration.streamID = settings.streamID?.value
        configuration.passphrase = settings.passphrase?.value
        configuration.keyLengthBytes = settings.keyLengthBytes
        configuration.latencyMilliseconds = settings.latencyMilliseconds
        configuration.audioCodec = settings.audioCodec
        configuration.captureTime = output.captureTime
        if let timeout = output.connection.timeoutSeconds { configuration.connectTimeoutSeconds = timeout }
        if let reconnect = output.connection.reconnect { configuration.reconnect = reconnect }
        if let seconds = output.connection.stallTimeoutSeconds { configuration.stallTimeoutSeconds = seconds }
        if let seconds = output.connection.inUseRetrySeconds { configuration.keyInUseRetry.windowSeconds = seconds }
        configuration.backups = output.backupIngests.compactMap { backup in
            guard case let .srt(settings) = backup else { return nil }
            return SRTOutputConfiguration.Ingest(host: settings.host, port: settings.port, streamID: settings.streamID?.value,
                                                 passphrase: settings.passphrase?.value, maskedTarget: settings.maskedURL)
        }
        if let seconds = output.connection.backupReturnAfterSeconds { configuration.failover.returnAfterSeconds = seconds }
        if output.adaptiveBitrate {
            configuration.adaptiveBitrate = SRTOutputConfiguration.adaptiveBitrate(targetBitsPerSecond: rendition.encoder.bitrateBitsPerSecond,
                                                                                   latencyMilliseconds: settings.latencyMilliseconds)
        }
        return SRTStreamOutput(configuration: configuration)
    }

    /// onMetaData, the acknowledgement window asked of the server (``RTMPOutput/acknowledgementWindow(bitsPerSecond:)``)
    /// and the adaptive target all follow the encoder of the rendition the output takes (a multitrack
    /// output's top track); its tracks are the renditions `renditions:` names.
    private func rtmp(_ output: OutputConfig, url: String, key: Secret?, camera: CameraConfig) throws -> RTMPOutput {
        let encoder = Self.rendition(of: output, in: camera).encoderSettings
        var configuration = RTMPOutputConfiguration(url: try RTMPURL(url, streamKey: key?.value),
                                                    stream: RTMPStreamDescription(encoder: encoder, rotation: camera.rotation))
        configuration.tracks = camera.trackRenditionIndices(of: output).map { index in
            RTMPTrack(rendition: index, stream: RTMPStreamDescription(encoder: camera.effectiveRenditions[index].encoderSettings, rotation: camera.rotation))
        }
        configuration.caCertificatesPath = output.caFile
        let connection = output.connection
        if let seconds = connection.sendQueueSeconds { configuration.queueMilliseconds = Int(seconds * 1000) }
        if let seconds = connection.stallTimeoutSeconds { configuration.stallSeconds = seconds }
        if let seconds = connection.inUseRetrySeconds { configuration.keyInUseRetry.windowSeconds = seconds }
        if let timeout = connection.timeoutSeconds {
            configuration.connectTimeoutSeconds = timeout
            configuration.handshakeTimeoutSeconds = timeout
            configuration.transactionTimeoutSeconds = timeout
        }
        if let reconnect = connection.reconnect { configuration.reconnect = reconnect }
        if let policy = connection.followRedirects { configuration.followRedirects = policy }
        // Each backup with the key the config gave it (ConfigParser+Backups): its own, or the output's.
        configuration.backups = try output.backupIngests.compactMap { backup throws in
            guard case let .rtmp(url, key, _) = backup else { return nil }
            return try RTMPURL(url, streamKey: key?.value)
        }
        if let seconds = connection.backupReturnAfterSeconds { configuration.failover.returnAfterSeconds = seconds }
        if output.adaptiveBitrate { configuration.adaptiveBitrate = .init(targetBitsPerSecond: encoder.bitrateBitsPerSecond) }
        configuration.captureTime = output.captureTime
        return RTMPOutput(configuration: configuration)
    }

    private func rtp(_ output: OutputConfig, host: String, port: Int, payloadType: Int, key: Secret?) throws -> RTPStreamOutput {
        let keying = try key.map { key throws in
            key.value == ConfigParser.generatedSRTPKey ? SRTPKeyingMaterial.random() : try SRTPKeyingMaterial(base64: key.value)
        }
        var configuration = RTPOutputConfiguration(destination: try RTPDestination(host: host, port: port), keyingMaterial: keying)
        configuration.payloadType = UInt8(payloadType)
        configuration.localPort = output.connection.localPort
        configuration.captureTime = output.captureTime
        if let seconds = output.connection.stallTimeoutSeconds { configuration.stallTimeoutSeconds = seconds }
        return try RTPStreamOutput(configuration: configuration) { [logger, onRTPDescription] description in
            let text = description.text
            onRTPDescription(output, text)
            guard let path = output.sdpFile else { return }
            do {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                logger.error("cannot write the SDP file", metadata: ["output": "\(output.id)", "path": "\(path)", "error": "\(error)"])
            }
        }
    }

    private func whep(_ output: OutputConfig, maxViewers: Int, camera: CameraConfig) throws -> WHEPService {
        var configuration = WHEPConfiguration(udpHost: whep.udpHost, udpPort: output.viewers.udpPort)
        configuration.maximumViewers = maxViewers
        configuration.bearerToken = output.viewers.token?.value
        if let seconds = output.connection.stallTimeoutSeconds { configuration.stallTimeoutSeconds = seconds }
        let service = try WHEPService(configuration: configuration)
        if let bitrate = Self.whepAdaptiveBitrate(output, for: camera) {
            service.adaptBitrate(configuredBitsPerSecond: bitrate.configured, minimumBitsPerSecond: bitrate.minimum)
        }
        whep.set(service, for: camera.id)
        return service
    }

    /// With `adaptive_bitrate`, the bitrate WHEP viewers' estimates may hold the encoder below (that
    /// of the rendition the output takes), and the lowest they may take it to; nil when the output
    /// does not adapt.
    static func whepAdaptiveBitrate(_ output: OutputConfig, for camera: CameraConfig) -> (configured: Int, minimum: Int)? {
        guard output.adaptiveBitrate else { return nil }
        let bitrate = rendition(of: output, in: camera).encoder.bitrateBitsPerSecond
        // The config refuses a min_bitrate above the rendition's bitrate (ConfigParser).
        let minimum = output.viewers.minimumBitrateBitsPerSecond ?? min(REMBBitratePolicy.defaultMinimumBitsPerSecond, bitrate)
        return (configured: bitrate, minimum: minimum)
    }

    private func whip(_ output: OutputConfig, url: String, token: Secret?) throws -> WHIPOutput {
        var configuration = WHIPOutputConfiguration(endpoint: try WHIPURL(url), bearerToken: token?.value)
        configuration.caCertificatesPath = output.caFile
        let connection = output.connection
        if let timeout = connection.timeoutSeconds {
            configuration.requestTimeoutSeconds = timeout
            configuration.connectTimeoutSeconds = timeout
        }
        if let consent = connection.consentTimeoutSeconds { configuration.consentTimeoutSeconds = consent }
        if let stall = connection.stallTimeoutSeconds { configuration.stallTimeoutSeconds = stall }
        if let reconnect = connection.reconnect { configuration.reconnect = reconnect }
        if let policy = connection.followRedirects { configuration.followRedirects = policy }
        return try WHIPOutput(configuration: configuration)
    }
}
