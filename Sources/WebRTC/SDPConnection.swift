/// The `c=` line (RFC 8866 §5.7). WebRTC puts a placeholder here (`IN IP4 0.0.0.0`, RFC 9429
/// §5.2.1) because the real addresses travel in ICE candidates.
public struct SDPConnection: Sendable, Hashable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard fields.count == 3 else {
            throw SDPFieldError("connection needs 3 fields, has \(fields.count)")
        }
        networkType = String(fields[0])
        addressType = String(fields[1])
        address = String(fields[2])
    }

    var sdpValue: String {
        "\(networkType) \(addressType) \(address)"
    }
}
