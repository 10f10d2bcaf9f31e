import CSRT
import Foundation
import Synchronization

/// An SRT receiver (a libsrt listener on 127.0.0.1) that, while ``busy``, refuses every caller in
/// its listen callback with SRT_REJX_CONFLICT (1409, "the resource is already locked for
/// modification"): what a media server answers a publisher whose stream ID is still held by an
/// earlier, frozen session. No SRT server installed here does that (srt-live-transmit cannot
/// reject by stream ID, ffmpeg's listener neither), so this is the fault no real peer can produce.
///
/// Once released it accepts callers and counts the bytes they send; ``dropConnection()`` closes the
/// accepted socket, as a receiver that lost the session. It records when each caller reached the
/// callback, refused or not, so a test judges the caller's retry spacing by the receiver's own clock.
public final class SRTBusyListener: @unchecked Sendable {
    /// What the listener saw, in monotonic seconds (`ProcessInfo.systemUptime`).
    public struct Record: Sendable {
        /// When each refused caller reached the listen callback.
        public var refusedAt: [Double] = []
        /// When each accepted caller reached it.
        public var acceptedAt: [Double] = []
        /// When the first bytes came on the connection accepted last.
        public var firstMediaAt: Double?
        public var bytesReceived = 0
    }

    /// The reject reason a server gives a stream ID already being published.
    public static let conflictRejectReason: Int32 = 1409

    public let port: Int
    private let handle: SRTSOCKET
    /// `sockets`: every one libsrt made for a caller, accepted or refused (``close()`` waits for them);
    /// `accepted`: how many of the callers admitted were taken with `srt_accept`.
    private let state = Mutex<(busy: Bool, record: Record, drop: Bool, sockets: [SRTSOCKET], accepted: Int)>((false, Record(), false, [], 0))
    private let stopping = Atomic<Bool>(false)
    private var thread: Thread?

    public init() throws {
        _ = srt_startup()
        let socket = srt_create_socket()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_bind(socket, $0, Int32(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = Int32(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { srt_getsockname(socket, $0, &length) }
        }
        handle = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        // The callback goes on before srt_listen (libsrt 1.5.4 refuses it on a listening socket).
        let hooked = srt_listen_callback(handle, { opaque, socket, _, _, _ in
            guard let opaque else { return 0 }
            return Unmanaged<SRTBusyListener>.fromOpaque(opaque).takeUnretainedValue().admits(socket) ? 0 : -1
        }, Unmanaged.passUnretained(self).toOpaque())
        guard bound != csrt_error(), hooked != csrt_error(), srt_listen(handle, 4) != csrt_error(),
              csrt_set_bool(handle, SRTO_RCVSYN, 0) != csrt_error() else {
            let reason = String(cString: srt_getlasterror_str())
            srt_close(handle)
            throw SRTBusyListenerError(reason: reason)
        }
        let thread = Thread { [self] in serve() }
        thread.name = "srt-busy-listener"
        self.thread = thread
        thread.start()
    }

    /// While true, every caller is refused with ``conflictRejectReason``.
    public var busy: Bool {
        get { state.withLock { $0.busy } }
        set { state.withLock { $0.busy = newValue } }
    }

    public var record: Record { state.withLock { $0.record } }

    /// Closes the accepted connection (the caller sees its connection broken).
    public func dropConnection() { state.withLock { $0.drop = true } }

    /// Stops the thread, closes the port and waits (at most 10 s) until libsrt has freed the
    /// sockets: libsrt 1.5.1's garbage-collector thread, still freeing closed sockets when the test
    /// process exits, races its exit-time clean-up ("double free or corruption", about one run in
    /// five without this wait). Every test calls it (the thread holds the listener).
    public func close() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        while thread?.isFinished == false { usleep(5_000) }
        srt_close(handle)
        let deadline = ProcessInfo.processInfo.systemUptime + 10
        let sockets = [handle] + state.withLock { $0.sockets }
        while sockets.contains(where: { srt_getsockstate($0) != SRTS_NONEXIST }), ProcessInfo.processInfo.systemUptime < deadline {
            usleep(50_000)
        }
    }

    /// On libsrt's receive thread, for each caller's conclusion handshake.
    private func admits(_ socket: SRTSOCKET) -> Bool {
        let now = ProcessInfo.processInfo.systemUptime
        return state.withLock { state in
            state.sockets.append(socket)
            guard state.busy else {
                state.record.acceptedAt.append(now)
                // Media "on the connection accepted last" is this one's from here on: the previous
                // connection's first bytes must not pass for it before the accept loop takes it.
                state.record.firstMediaAt = nil
                return true
            }
            state.record.refusedAt.append(now)
            srt_setrejectreason(socket, Self.conflictRejectReason)
            return false
        }
    }

    /// Accepts callers and reads what they send, polling every 2 ms without blocking. It accepts only
    /// after the callback admitted a caller: libsrt logs an error for every accept with none waiting.
    private func serve() {
        var connection: SRTSOCKET?
        var buffer = [CChar](repeating: 0, count: 1500)
        while !stopping.load(ordering: .relaxed) {
            let admitted = state.withLock { $0.record.acceptedAt.count > $0.accepted }
            let accepted = admitted ? srt_accept(handle, nil, nil) : csrt_invalid_socket()
            if accepted != csrt_invalid_socket() {
                if let connection { srt_close(connection) }
                _ = csrt_set_bool(accepted, SRTO_RCVSYN, 0)
                connection = accepted
                state.withLock { $0.record.firstMediaAt = nil; $0.drop = false; $0.accepted += 1 }
            }
            if let open = connection, state.withLock({ $0.drop }) {
                srt_close(open)
                connection = nil
                state.withLock { $0.drop = false }
            }
            var received = false
            while let open = connection {
                let count = srt_recvmsg(open, &buffer, Int32(buffer.count))
                guard count > 0 else { break }
                received = true
                let now = ProcessInfo.processInfo.systemUptime
                state.withLock { state in
                    state.record.bytesReceived += Int(count)
                    if state.record.firstMediaAt == nil { state.record.firstMediaAt = now }
                }
            }
            if !received { usleep(2_000) }
        }
        if let connection { srt_close(connection) }
    }
}

public struct SRTBusyListenerError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { "the SRT test listener could not listen: \(reason)" }
}
