/// The SRTP master keys and salts a DTLS-SRTP handshake yields (RFC 5764 §4.2), already split into
/// this side's sending material and the peer's. Plain bytes so this module does not depend on
/// libsrtp: hand them to `SRTPKeyingMaterial(masterKey:masterSalt:)`.
public struct DTLSSRTPKeys: Sendable, Equatable {
    /// SRTP_AES128_CM_HMAC_SHA1_80: a 128-bit master key and a 112-bit master salt.
    public static let masterKeyLength = 16
    public static let masterSaltLength = 14
    /// RFC 5764 §4.2: the exporter label and output length, 2 × (key + salt).
    static let exporterLabel = "EXTRACTOR-dtls_srtp"
    static let exportedLength = 2 * (masterKeyLength + masterSaltLength)

    /// Protects what this side sends.
    public let localMasterKey: [UInt8]
    public let localMasterSalt: [UInt8]
    /// Unprotects what the peer sends.
    public let remoteMasterKey: [UInt8]
    public let remoteMasterSalt: [UInt8]

    /// Splits the exporter output `client_key ‖ server_key ‖ client_salt ‖ server_salt` (RFC 5764 §4.2)
    /// for `role`; nil unless `exported` has exactly ``exportedLength`` bytes.
    init?(exported: [UInt8], role: DTLSRole) {
        guard exported.count == Self.exportedLength else { return nil }
        let key = Self.masterKeyLength, salt = Self.masterSaltLength
        let clientKey = Array(exported[0..<key]), serverKey = Array(exported[key..<2 * key])
        let clientSalt = Array(exported[2 * key..<2 * key + salt]), serverSalt = Array(exported[(2 * key + salt)...])
        switch role {
        case .client:
            (localMasterKey, localMasterSalt, remoteMasterKey, remoteMasterSalt) = (clientKey, clientSalt, serverKey, serverSalt)
        case .server:
            (localMasterKey, localMasterSalt, remoteMasterKey, remoteMasterSalt) = (serverKey, serverSalt, clientKey, clientSalt)
        }
    }
}
