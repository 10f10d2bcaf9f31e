/// The `o=` line (RFC 8866 §5.2): who made the description and which version of it this is.
/// JSEP (RFC 9429 §5.2.1) bumps `sessionVersion` on every new description of the same session.
public struct SDPOrigin: Sendable, Hashable {
    public var username: String
    public var sessionID: UInt64
    public var sessionVersion: UInt64
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(username: String = "-", sessionID: UInt64, sessionVersion: UInt64 = 2,
                networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard fields.count == 6 else {
            throw SDPFieldError("origin needs 6 fields, has \(fields.count)")
        }
        username = String(fields[0])
        sessionID = try sdpInteger(fields[1], "sess-id")
        sessionVersion = try sdpInteger(fields[2], "sess-version")
        networkType = String(fields[3])
        addressType = String(fields[4])
        address = String(fields[5])
    }

    var sdpValue: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}
