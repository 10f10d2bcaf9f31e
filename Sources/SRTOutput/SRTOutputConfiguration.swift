import Pipeline

/// Everything an ``SRTStreamOutput`` needs, as plain values (the engine builds it from the config).
public struct SRTOutputConfiguration: Sendable {
    public enum Mode: Sendable, Equatable {
        /// Dial the receiver at `host:port`.
        case caller
        /// Wait on `port` (on `host`, or every interface when empty) for a receiver to dial in.
        case listener
    }

    public var host: String
    public var port: Int
    public var mode: Mode = .caller
    public var streamID: String?
    public var passphrase: String?
    public var keyLengthBytes: Int?
    public var latencyMilliseconds: Int?
    /// Caller: how long a connect may take (libsrt's SRTO_CONNTIMEO).
    public var connectTimeoutSeconds = 3.0
    public var reconnect = ReconnectPolicy()
    /// Frames (video and audio) waiting for the output's thread; beyond this they are dropped and counted.
    public var queueCapacity = 90
    /// Shown in logs and status with secrets masked.
    public var maskedTarget: String

    public init(host: String, port: Int, maskedTarget: String) {
        self.host = host
        self.port = port
        self.maskedTarget = maskedTarget
    }

    /// MPEG-TS packets per SRT packet: 7 × 188 = 1316 bytes, the payload every SRT receiver expects.
    public static let transportPacketsPerPayload = 7
    public static let payloadBytes = transportPacketsPerPayload * 188
}
