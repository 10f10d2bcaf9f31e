/// Turns the byte stream OpenSSL writes into a memory BIO back into datagrams.
///
/// A memory BIO keeps no write boundaries, but DTLS records are self-delimiting (RFC 6347 §4.1):
///
///     0                   1                   2                   3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  ContentType  |    ProtocolVersion    |        epoch          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  sequence_number (48 bits)                    |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |            length             |   fragment (length bytes)…    |
///
/// so the stream splits into whole records, which are packed into datagrams of at most `mtu`
/// bytes (several records may share a datagram, RFC 6347 §4.1.1; a record is never split).
struct DTLSRecordFramer {
    static let headerLength = 13
    static let lengthOffset = 11

    let mtu: Int

    /// The datagrams for `stream`; a trailing partial record (never produced by OpenSSL) is
    /// returned in a datagram of its own rather than dropped.
    func datagrams(from stream: [UInt8]) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset < stream.count {
            let recordLength: Int
            if stream.count - offset >= Self.headerLength {
                let length = Int(stream[offset + Self.lengthOffset]) << 8 | Int(stream[offset + Self.lengthOffset + 1])
                recordLength = min(Self.headerLength + length, stream.count - offset)
            } else {
                recordLength = stream.count - offset
            }
            if !current.isEmpty && current.count + recordLength > mtu {
                datagrams.append(current)
                current = []
            }
            current.append(contentsOf: stream[offset..<offset + recordLength])
            offset += recordLength
        }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams
    }
}
