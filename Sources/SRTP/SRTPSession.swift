import CSRTP
import NIOCore

/// One direction of SRTP (RFC 3711) over libsrtp2: protects what we send, or unprotects what we
/// receive, for every SSRC of that direction.
///
/// Key-source agnostic: the session takes ``SRTPKeyingMaterial`` and nothing else, so the same type
/// serves SDES keys from an SDP `a=crypto` line (plain SRTP output) and keys exported from a DTLS
/// handshake (WebRTC: the client-write key protects what the client sends, the server-write key
/// what the server sends; make one `.sender` session with ours and one `.receiver` session with
/// the peer's).
///
/// Packets are transformed in place in a `ByteBuffer` whose readable bytes are exactly one packet;
/// protecting grows it by the authentication tag (reserving room first, so a buffer the caller
/// reuses and pre-sizes never reallocates), unprotecting shrinks it.
///
/// Not thread-safe (libsrtp keeps per-stream rollover counters and replay windows): one owner —
/// a sending thread or an event loop — uses a session at a time.
public final class SRTPSession {
    public enum Role: Sendable, Equatable {
        /// Protects outgoing SRTP/SRTCP. Retransmissions of a packet already sent (NACK answers
        /// without RTX) are allowed: same sequence number, same payload, so no keystream reuse
        /// on different plaintext.
        case sender
        /// Unprotects incoming SRTP/SRTCP with replay protection.
        case receiver
    }

    /// Bytes `srtp_protect` may append (tag, MKI): reserved before every RTP protect.
    public static let maxRTPTrailerSize = Int(csrtp_max_trailer_length())
    /// Bytes `srtp_protect_rtcp` may append (E flag + SRTCP index, tag, MKI).
    public static let maxRTCPTrailerSize = Int(csrtp_max_rtcp_trailer_length())
    /// Replay window for receivers: wide enough for reordering and late retransmissions.
    static let replayWindowSize = 1024

    public let role: Role
    public let profile: SRTPProfile
    private let context: srtp_t

    public init(keyingMaterial: SRTPKeyingMaterial, role: Role) throws(SRTPError) {
        try SRTPLibrary.initialize()
        var policy = srtp_policy_t()
        switch keyingMaterial.profile {
        case .aesCM128HMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        }
        policy.ssrc.type = role == .sender ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(Self.replayWindowSize)
        policy.allow_repeat_tx = role == .sender ? 1 : 0
        policy.next = nil
        var key = keyingMaterial.concatenated
        var created: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { keyBytes in
            policy.key = keyBytes.baseAddress
            return srtp_create(&created, &policy)
        }
        guard status == srtp_err_status_ok, let created else {
            throw .sessionCreationFailed(status: Int(status.rawValue))
        }
        context = created
        self.role = role
        profile = keyingMaterial.profile
    }

    deinit { srtp_dealloc(context) }

    /// Encrypts and authenticates the RTP packet in `packet`'s readable bytes.
    public func protect(rtp packet: inout ByteBuffer) throws(SRTPError) {
        try transform(&packet, reserving: Self.maxRTPTrailerSize, operation: "srtp_protect") { srtp_protect($0, $1, $2) }
    }

    /// Encrypts and authenticates the (compound) RTCP packet in `packet`'s readable bytes.
    public func protectRTCP(_ packet: inout ByteBuffer) throws(SRTPError) {
        try transform(&packet, reserving: Self.maxRTCPTrailerSize, operation: "srtp_protect_rtcp") { srtp_protect_rtcp($0, $1, $2) }
    }

    /// Authenticates and decrypts the SRTP packet in `packet`'s readable bytes, leaving plain RTP.
    public func unprotect(srtp packet: inout ByteBuffer) throws(SRTPError) {
        try transform(&packet, reserving: 0, operation: "srtp_unprotect") { srtp_unprotect($0, $1, $2) }
    }

    /// Authenticates and decrypts the SRTCP packet in `packet`'s readable bytes, leaving plain RTCP.
    public func unprotectRTCP(_ packet: inout ByteBuffer) throws(SRTPError) {
        try transform(&packet, reserving: 0, operation: "srtp_unprotect_rtcp") { srtp_unprotect_rtcp($0, $1, $2) }
    }

    private func transform(
        _ packet: inout ByteBuffer, reserving trailer: Int, operation: String,
        _ call: (srtp_t, UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t
    ) throws(SRTPError) {
        let start = packet.readerIndex
        guard packet.readableBytes > 0, packet.readableBytes <= Int(Int32.max) - trailer else {
            throw .malformedPacket(length: packet.readableBytes)
        }
        if trailer > 0 { packet.reserveCapacity(minimumWritableBytes: trailer) }
        var length = Int32(packet.readableBytes)
        let context = context
        // The storage is at least `start + length + trailer` bytes: libsrtp writes the tag after the packet.
        let status = packet.withVeryUnsafeMutableBytes { storage -> srtp_err_status_t? in
            guard let base = storage.baseAddress else { return nil }
            return call(context, base + start, &length)
        }
        guard let status else { throw .malformedPacket(length: packet.readableBytes) }
        switch status {
        case srtp_err_status_ok:
            packet.moveWriterIndex(to: start + Int(length))
        case srtp_err_status_auth_fail:
            throw .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old:
            throw .replayed
        case srtp_err_status_bad_param, srtp_err_status_parse_err:
            throw .malformedPacket(length: packet.readableBytes)
        default:
            throw .operationFailed(operation: operation, status: Int(status.rawValue))
        }
    }
}
