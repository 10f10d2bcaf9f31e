import COpenSSL

/// One DTLS 1.2 connection with DTLS-SRTP key export, over memory BIOs: datagrams in, datagrams
/// and events out, no sockets and no timers inside (the owner — one event loop per session —
/// does the I/O and schedules ``handleTimeout()`` after ``retransmitDelayNanos``).
///
/// The peer is authenticated by the fingerprint from its SDP; on success ``DTLSEvent/connected(_:)``
/// carries the SRTP keys (RFC 5764 §4.2). A close_notify, a fatal alert or a failed handshake ends
/// in ``DTLSEvent/closed(_:)``, after which the endpoint ignores input.
///
/// Not thread-safe: confine it to its owner's thread or event loop.
public final class DTLSEndpoint {
    public enum State: Sendable, Equatable {
        case handshaking, connected, closed
    }

    public let role: DTLSRole
    public private(set) var state: State = .handshaking
    /// Records discarded without ending the connection: forged, corrupted or replayed datagrams
    /// (RFC 6347 §4.1.2.7 says to drop them silently, so one stray datagram cannot end a session).
    public private(set) var discardedRecords = 0
    /// `SSL *`, owned; frees both BIOs.
    private let ssl: OpaquePointer
    /// Memory BIO OpenSSL reads the peer's datagrams from.
    private let incoming: OpaquePointer
    /// Memory BIO OpenSSL writes records to (split by ``DTLSRecordFramer``).
    private let outgoing: OpaquePointer
    private let framer: DTLSRecordFramer
    /// Set once connected, from the negotiated cipher.
    private var screen: DTLSRecordScreen?
    private let check: DTLSPeerCheck
    /// Bound on SSL_read calls per input, so a flood of records cannot pin the loop.
    private static let maximumReadsPerInput = 64

    /// - Parameters:
    ///   - remoteFingerprint: the peer's `a=fingerprint` from its SDP; one whose hash function is
    ///     not an ``DTLSFingerprint/Algorithm`` or whose digest is not of its length is refused.
    ///   - mtu: largest datagram to emit (the DTLS layer fragments handshake messages to fit).
    ///   - initialRetransmitMillis: first handshake retransmission timeout (RFC 6347 says 1 s),
    ///     doubled on each retry.
    public init(context: DTLSContext, role: DTLSRole, remoteFingerprint: DTLSFingerprint,
                mtu: Int = 1200, initialRetransmitMillis: UInt32 = 1000) throws(DTLSError) {
        let algorithm = try remoteFingerprint.checkableAlgorithm()
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.context) else {
            throw .setupFailed(step: "SSL_new", openSSL: OpenSSLErrorQueue.drain())
        }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .setupFailed(step: "BIO_new(BIO_s_mem())", openSSL: OpenSSLErrorQueue.drain())
        }
        // An empty memory BIO must read as "retry", not end of file.
        _ = livepush_BIO_set_mem_eof_return(incoming, -1)
        _ = livepush_BIO_set_mem_eof_return(outgoing, -1)
        SSL_set_bio(ssl, incoming, outgoing)
        // Memory BIOs know no path MTU: fix it instead of querying.
        guard livepush_DTLS_set_fixed_link_mtu(ssl, mtu) == 1 else {
            SSL_free(ssl)
            throw .setupFailed(step: "DTLS_set_link_mtu(\(mtu))", openSSL: OpenSSLErrorQueue.drain())
        }
        let check = DTLSPeerCheck(expected: remoteFingerprint, algorithm: algorithm, initialTimeoutMicros: initialRetransmitMillis * 1000)
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(check).toOpaque())
        DTLS_set_timer_cb(ssl) { ssl, previous in DTLSPeerCheck.nextTimeout(ssl: ssl, previousMicros: previous) }
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        self.role = role
        self.check = check
        framer = DTLSRecordFramer(mtu: mtu)
    }

    deinit { SSL_free(ssl) }

    /// Starts the handshake: a client's first flight (ClientHello); nothing for a server.
    public func start() -> DTLSOutput { advance() }

    /// Feeds one datagram from the peer (a DTLS record or several, RFC 7983 first byte 20–63).
    public func receive(_ datagram: [UInt8]) -> DTLSOutput {
        guard state != .closed, !datagram.isEmpty else { return DTLSOutput() }
        var records = datagram
        if state == .connected, let screen {
            let (kept, dropped) = screen.screen(datagram)
            discardedRecords += dropped
            guard !kept.isEmpty else { return DTLSOutput() }
            records = kept
        }
        _ = records.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) }
        return advance()
    }

    /// Time until OpenSSL wants ``handleTimeout()`` (a flight may be lost), or nil if no timer runs.
    /// OpenSSL measures it on the wall clock; the owner's timer decides when to call back.
    public var retransmitDelayNanos: Int64? {
        guard state == .handshaking else { return nil }
        var left = timeval()
        guard livepush_DTLSv1_get_timeout(ssl, &left) == 1 else { return nil }
        return Int64(left.tv_sec) * 1_000_000_000 + Int64(left.tv_usec) * 1000
    }

    /// Retransmits the last flight if its timer expired; ends the connection once OpenSSL gives up.
    public func handleTimeout() -> DTLSOutput {
        guard state == .handshaking else { return DTLSOutput() }
        OpenSSLErrorQueue.clear()
        if livepush_DTLSv1_handle_timeout(ssl) < 0 {
            OpenSSLErrorQueue.clear()
            return finish(DTLSOutput(), .failed(.handshakeTimedOut))
        }
        return DTLSOutput(datagrams: drainOutgoing())
    }

    /// Sends close_notify and ends the connection (no further events).
    public func close() -> [[UInt8]] {
        guard state != .closed else { return [] }
        OpenSSLErrorQueue.clear()
        if state == .connected { _ = SSL_shutdown(ssl) }
        state = .closed
        OpenSSLErrorQueue.clear()
        return drainOutgoing()
    }

    // MARK: - Driving OpenSSL

    private func advance() -> DTLSOutput {
        var output = DTLSOutput()
        OpenSSLErrorQueue.clear()
        if state == .handshaking {
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                switch connectedKeys() {
                case .success(let keys):
                    state = .connected
                    screen = DTLSRecordScreen(cipherName: SSL_CIPHER_get_name(SSL_get_current_cipher(ssl)).map { String(cString: $0) } ?? "")
                    output.events.append(.connected(keys))
                case .failure(let error):
                    return finish(output, .failed(error))
                }
            } else if !isRetry(SSL_get_error(ssl, result)) {
                let reason = OpenSSLErrorQueue.drain()
                if check.mismatch == nil, reason == OpenSSLErrorQueue.empty, !receivedAlert {
                    // Nothing recorded and no alert: OpenSSL threw a record away, the handshake goes on
                    // (a dead peer still ends it through the retransmission timeout).
                    discardedRecords += 1
                    output.datagrams += drainOutgoing()
                    return output
                }
                return finish(output, .failed(check.mismatch ?? .handshakeFailed(openSSL: reason)))
            }
        }
        if state == .connected {
            if let reason = readApplicationData(into: &output) { return finish(output, reason) }
        }
        output.datagrams += drainOutgoing()
        return output
    }

    /// Reads records after the handshake: application data, a retransmitted peer flight (OpenSSL
    /// answers it with our last flight), close_notify or an alert. Returns why the connection ended, if it did.
    private func readApplicationData(into output: inout DTLSOutput) -> DTLSCloseReason? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<Self.maximumReadsPerInput {
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                output.events.append(.applicationData(Array(buffer.prefix(Int(count)))))
                continue
            }
            let error = SSL_get_error(ssl, count)
            if isRetry(error) { return nil }
            if error == SSL_ERROR_ZERO_RETURN { return .peerClosed }
            let reason = OpenSSLErrorQueue.drain()
            // OpenSSL 3.0.x patch levels report a record they throw away differently (3.0.19: an error
            // with nothing queued; earlier ones a retry), so judge by what OpenSSL recorded, not the
            // return code. Without an alert from the peer, an error with nothing queued, or one after
            // which the handshake still counts as done, drops the rest of the datagram and the session
            // goes on. A real failure queues its reason.
            guard receivedAlert || (reason != OpenSSLErrorQueue.empty && SSL_is_init_finished(ssl) != 1) else {
                discardedRecords += 1
                _ = BIO_ctrl(incoming, BIO_CTRL_RESET, 0, nil)
                return nil
            }
            return .failed(.connectionFailed(openSSL: reason))
        }
        return nil
    }

    private func isRetry(_ error: Int32) -> Bool { error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE }

    /// The peer sent close_notify or a fatal alert: the connection really is over.
    private var receivedAlert: Bool { SSL_get_shutdown(ssl) & Int32(SSL_RECEIVED_SHUTDOWN) != 0 }

    /// After the handshake: the fingerprint was checked, SRTP was agreed, the keys export.
    private func connectedKeys() -> Result<DTLSSRTPKeys, DTLSError> {
        guard check.verified else {
            return .failure(check.mismatch ?? .handshakeFailed(openSSL: "the peer presented no certificate"))
        }
        guard let profile = SSL_get_selected_srtp_profile(ssl), profile.pointee.id == DTLSContext.srtpProfileID else {
            return .failure(.srtpNotNegotiated)
        }
        var exported = [UInt8](repeating: 0, count: DTLSSRTPKeys.exportedLength)
        let label = DTLSSRTPKeys.exporterLabel
        let status = exported.withUnsafeMutableBytes { out in
            SSL_export_keying_material(ssl, out.baseAddress, out.count, label, label.utf8.count, nil, 0, 0)
        }
        guard status == 1, let keys = DTLSSRTPKeys(exported: exported, role: role) else {
            return .failure(.keyExportFailed(openSSL: OpenSSLErrorQueue.drain()))
        }
        return .success(keys)
    }

    /// Ends the connection, still sending what OpenSSL queued (a fatal alert tells the peer why).
    private func finish(_ output: DTLSOutput, _ reason: DTLSCloseReason) -> DTLSOutput {
        var output = output
        state = .closed
        output.datagrams += drainOutgoing()
        output.events.append(.closed(reason))
        return output
    }

    private func drainOutgoing() -> [[UInt8]] {
        let pending = BIO_ctrl_pending(outgoing)
        guard pending > 0 else { return [] }
        var stream = [UInt8](repeating: 0, count: pending)
        let read = stream.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32($0.count)) }
        guard read > 0 else { return [] }
        return framer.datagrams(from: Array(stream.prefix(Int(read))))
    }
}
