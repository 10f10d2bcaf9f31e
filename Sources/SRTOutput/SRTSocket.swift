import CSRT
import Foundation
import MediaCore

/// One libsrt socket, owned by one thread (the output's): every call here may block, so none is
/// made from an event loop or the encoder thread.
final class SRTSocket {
    /// libsrt's process-wide start-up, done once; it is never cleaned up (outputs come and go).
    private static let started: Void = { _ = srt_startup() }()

    let handle: SRTSOCKET
    /// Listener: the callers dialling in, so rejected ones are named (``SRTCallerWatch``).
    private var callerWatch: SRTCallerWatch?

    private init(handle: SRTSOCKET) { self.handle = handle }

    deinit { srt_close(handle) }

    /// A new socket with the sender's options set (options a listener sets are inherited by the
    /// sockets it accepts).
    static func make(_ configuration: SRTOutputConfiguration) throws(SRTOutputError) -> SRTSocket {
        _ = started
        let handle = srt_create_socket()
        guard handle != csrt_invalid_socket() else { throw .optionRefused(option: "srt_create_socket", reason: lastError) }
        let socket = SRTSocket(handle: handle)
        try socket.set("SRTO_TRANSTYPE", csrt_set_int(handle, SRTO_TRANSTYPE, Int32(SRTT_LIVE.rawValue)))
        try socket.set("SRTO_SENDER", csrt_set_bool(handle, SRTO_SENDER, 1))
        try socket.set("SRTO_PAYLOADSIZE", csrt_set_int(handle, SRTO_PAYLOADSIZE, Int32(SRTOutputConfiguration.payloadBytes)))
        try socket.set("SRTO_CONNTIMEO", csrt_set_int(handle, SRTO_CONNTIMEO, Int32(configuration.connectTimeoutSeconds * 1000)))
        // Sends block at most this long when the send buffer is full; the output's thread owns them.
        try socket.set("SRTO_SNDTIMEO", csrt_set_int(handle, SRTO_SNDTIMEO, 1000))
        if let latency = configuration.latencyMilliseconds {
            try socket.set("SRTO_LATENCY", csrt_set_int(handle, SRTO_LATENCY, Int32(latency)))
        }
        if let passphrase = configuration.passphrase {
            try socket.set("SRTO_PASSPHRASE (passphrase)", csrt_set_string(handle, SRTO_PASSPHRASE, passphrase, Int32(passphrase.utf8.count)))
        }
        if let length = configuration.keyLengthBytes {
            try socket.set("SRTO_PBKEYLEN (pbkeylen)", csrt_set_int(handle, SRTO_PBKEYLEN, Int32(length)))
        }
        if let streamID = configuration.streamID {
            try socket.set("SRTO_STREAMID (streamid)", csrt_set_string(handle, SRTO_STREAMID, streamID, Int32(streamID.utf8.count)))
        }
        return socket
    }

    private func set(_ option: String, _ result: Int32) throws(SRTOutputError) {
        guard result != csrt_error() else { throw .optionRefused(option: option, reason: Self.lastError) }
    }

    static var lastError: String { String(cString: srt_getlasterror_str()) }

    /// Where a caller's connect stands.
    enum ConnectProgress {
        case connecting, connected
        case failed(SRTOutputError)
    }

    /// Caller: starts connecting to `host:port` without blocking; ``progress(target:)`` tells how it
    /// goes (libsrt gives up after the connect timeout), so a dead receiver never holds the output's
    /// thread and a stop never waits for a connect.
    func startConnect(host: String, port: Int, target: String) throws(SRTOutputError) {
        var address = try Self.resolve(host: host, port: port)
        try set("SRTO_RCVSYN", csrt_set_bool(handle, SRTO_RCVSYN, 0))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_connect(handle, $0, Int32(MemoryLayout<sockaddr_in>.size)) }
        }
        if result == csrt_error() { throw rejection(target: target) }
    }

    func progress(target: String) -> ConnectProgress {
        switch srt_getsockstate(handle) {
        case SRTS_CONNECTED: return .connected
        case SRTS_INIT, SRTS_OPENED, SRTS_CONNECTING: return .connecting
        default: return .failed(rejection(target: target))
        }
    }

    /// Why a connect failed: the receiver's rejection (a passphrase named as such) or libsrt's error.
    private func rejection(target: String) -> SRTOutputError {
        Self.error(rejectReason: srt_getrejectreason(handle), target: target, libsrtError: Self.lastError)
    }

    /// What a rejection reason (libsrt's `SRT_REJ_*`, or a receiver's own code from 1000 up) means
    /// for the output: a passphrase mismatch, a stream ID already being published
    /// (SRT_REJX_CONFLICT, ``SRTOutputError/streamIDInUse(target:)``), or a failed connect naming the
    /// reason (libsrt's error when the reason is unknown).
    static func error(rejectReason reason: Int32, target: String, libsrtError: String) -> SRTOutputError {
        if reason == Int32(SRT_REJ_BADSECRET.rawValue) || reason == Int32(SRT_REJ_UNSECURE.rawValue) {
            return .passphraseRejected(reason: String(cString: srt_rejectreason_str(reason)))
        }
        if reason == conflictRejectReason { return .streamIDInUse(target: target) }
        return .connectFailed(target: target,
                              reason: reason == Int32(SRT_REJ_UNKNOWN.rawValue) ? libsrtError : String(cString: srt_rejectreason_str(reason)))
    }

    /// SRT_REJX_CONFLICT (srt/access_control.h, a macro Swift does not import): "the resource is
    /// already locked for modification", a publisher's stream ID already in use.
    static let conflictRejectReason: Int32 = 1409

    /// Listener: binds `host:port` (every interface when `host` is empty) and listens, without
    /// blocking: ``acceptPending()`` takes a receiver that dialled in.
    func listen(host: String, port: Int) throws(SRTOutputError) {
        var address = try Self.resolve(host: host.isEmpty ? "0.0.0.0" : host, port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_bind(handle, $0, Int32(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound != csrt_error() else { throw .listenFailed(port: port, reason: Self.lastError) }
        // The callback goes on before srt_listen: libsrt 1.5.4 (Debian 13) refuses it on a socket
        // already listening ("Cannot do this operation on a CONNECTED socket"); 1.5.1 took either order.
        let watch = SRTCallerWatch()
        guard watch.install(on: handle) else { throw .optionRefused(option: "srt_listen_callback", reason: Self.lastError) }
        callerWatch = watch
        guard srt_listen(handle, 1) != csrt_error() else { throw .listenFailed(port: port, reason: Self.lastError) }
        try set("SRTO_RCVSYN", csrt_set_bool(handle, SRTO_RCVSYN, 0))
    }

    /// The socket of a receiver waiting to be accepted, or nil when none is (never blocks).
    func acceptPending() -> SRTSocket? {
        var address = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let accepted = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_accept(handle, $0, &length) }
        }
        guard accepted != csrt_invalid_socket() else { return nil }
        let socket = SRTSocket(handle: accepted)
        // The accepted socket inherits non-blocking receive; sending stays blocking (bounded by SNDTIMEO).
        _ = csrt_set_bool(accepted, SRTO_SNDSYN, 1)
        return socket
    }

    /// Listener: the addresses of callers libsrt rejected in the handshake since the last call
    /// (`accepted`, just taken, is not one of them).
    func rejectedCallers(accepted: SRTSocket?) -> [String] {
        callerWatch?.rejected(accepted: accepted?.handle) ?? []
    }

    /// One SRT message (at most 1316 bytes of MPEG-TS).
    func send(_ bytes: UnsafeRawBufferPointer) throws(SRTOutputError) {
        let sent = srt_sendmsg2(handle, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        guard sent != csrt_error() else { throw .sendFailed(reason: Self.lastError) }
    }

    /// Waits (bounded) until the receiver acknowledged everything sent and then one latency
    /// window, in which the receiver hands the last packets to its application: closing earlier
    /// drops what either side still buffers, cutting the last frames of a stream.
    func drain(timeoutSeconds: Double) {
        let deadline = MonotonicClock.nowNanos() + Int64(timeoutSeconds * 1e9)
        while MonotonicClock.nowNanos() < deadline, hasUnacknowledgedData { usleep(10_000) }
        let end = min(deadline, MonotonicClock.nowNanos() + deliveryWindowNanos)
        while MonotonicClock.nowNanos() < end, isConnected { usleep(10_000) }
    }

    /// Sent packets the receiver has not acknowledged yet (libsrt's send buffer is not empty).
    var hasUnacknowledgedData: Bool {
        var blocks = 0, bytes = 0
        return srt_getsndbuffer(handle, &blocks, &bytes) != csrt_error() && blocks > 0
    }

    var isConnected: Bool { srt_getsockstate(handle) == SRTS_CONNECTED }

    /// How long after the last acknowledgement the receiver may still be handing packets to its
    /// application: the latency window and a margin.
    var deliveryWindowNanos: Int64 { Int64(peerLatencyMilliseconds + Self.deliveryMarginMilliseconds) * 1_000_000 }

    /// Beyond the latency window: the receiver's delivery is timed from the packets' send time.
    static let deliveryMarginMilliseconds = 50

    /// libsrt's counters for this connection.
    func statistics() -> SRT_TRACEBSTATS? {
        var stats = SRT_TRACEBSTATS()
        return srt_bstats(handle, &stats, 0) == csrt_error() ? nil : stats
    }

    /// The latency window agreed in the handshake (the receiver's view of it, SRTO_PEERLATENCY).
    var peerLatencyMilliseconds: Int {
        var value: Int32 = 0
        var length = Int32(MemoryLayout<Int32>.size)
        return srt_getsockflag(handle, SRTO_PEERLATENCY, &value, &length) == csrt_error() ? 0 : Int(value)
    }

    private static func resolve(host: String, port: Int) throws(SRTOutputError) -> sockaddr_in {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results, let address = first.pointee.ai_addr else {
            throw .unresolvableHost(host)
        }
        defer { freeaddrinfo(results) }
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
    }
}
