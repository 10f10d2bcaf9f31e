import Output

/// What went wrong with an SRT output, with what to do about it.
public enum SRTOutputError: Error, Equatable, Sendable, CustomStringConvertible {
    case unresolvableHost(String)
    /// The receiver refused the passphrase (wrong, or one side has none).
    case passphraseRejected(reason: String)
    case connectFailed(target: String, reason: String)
    /// The receiver refused the stream ID as already being published (libsrt's access-control
    /// rejection SRT_REJX_CONFLICT, 1409): soon after a loss of ours, usually our own frozen session
    /// that the receiver has not dropped yet (``Output/KeyInUseRetry``).
    case streamIDInUse(target: String)
    case listenFailed(port: Int, reason: String)
    case sendFailed(reason: String)
    case muxerFailed(reason: String)
    case optionRefused(option: String, reason: String)
    /// Listener: libsrt turned away a caller in the handshake; with a passphrase here, its key
    /// material did not match (``SRTCallerWatch``).
    case callerRejected(address: String, listenerHasPassphrase: Bool)
    /// The receiver stopped acknowledging (``Output/DeliveryHealth``), though the socket lives.
    case stalled(evidence: String)

    public var description: String {
        switch self {
        case let .unresolvableHost(host): return "cannot resolve SRT host '\(host)'"
        case let .passphraseRejected(reason):
            return "the SRT receiver rejected the passphrase (\(reason)): give both sides the same passphrase, or neither"
        case let .connectFailed(target, reason): return "cannot connect to \(target): \(reason)"
        case let .streamIDInUse(target):
            return "\(target) refused the stream: its stream ID is already being published (SRT_REJX_CONFLICT, 1409)"
        case let .listenFailed(port, reason): return "cannot listen for SRT on port \(port): \(reason)"
        case let .sendFailed(reason): return "SRT send failed: \(reason)"
        case let .muxerFailed(reason): return "MPEG-TS muxer: \(reason)"
        case let .optionRefused(option, reason): return "libsrt refused \(option): \(reason)"
        case let .stalled(evidence): return "stalled: \(evidence)"
        case let .callerRejected(address, true):
            return "an SRT caller from \(address) was rejected: wrong passphrase (libsrt refused its key material in the handshake; "
                + "a caller with none is refused too); set the same passphrase on both sides"
        case let .callerRejected(address, false):
            return "an SRT caller from \(address) was rejected in the handshake: it sent a passphrase and this listener has none "
                + "(or asked for options libsrt cannot agree on); set the same passphrase on both sides, or none"
        }
    }
}

extension SRTOutputError: ConnectionError {
    /// An SRT caller tries again after any failure: a receiver may come back, or get its passphrase fixed.
    public var isRetryable: Bool { true }

    /// The SRT form of RTMP's "key in use": retried soon after a loss of ours (``Output/KeyInUseRetry``).
    public var isKeyInUse: Bool {
        if case .streamIDInUse = self { return true }
        return false
    }

    /// The reconnect cause the delivery report counts.
    public var cause: String {
        if case .stalled = self { return "stalled" }
        return "connection lost"
    }
}
