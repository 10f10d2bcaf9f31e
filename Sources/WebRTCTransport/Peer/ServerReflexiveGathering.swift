import NIOCore
import WebRTC

/// Server-reflexive candidates (RFC 8445 §5.1.1.1) from the STUN servers a WHIP endpoint named in
/// its `Link` headers: one Binding request from each local socket to each server, and for every
/// answer whose XOR-MAPPED-ADDRESS differs from the socket's own address, a `srflx` candidate
/// based on it. Without I/O: the peer connection sends the requests and feeds the answers in.
struct ServerReflexiveGathering {
    struct Request {
        var bytes: ByteBuffer
        var from: TransportAddress
        var to: TransportAddress
    }

    private var pending: [STUNTransactionID: (base: TransportAddress, server: TransportAddress)] = [:]
    private(set) var candidates: [ICECandidate] = []

    /// The requests to send: every IPv4 base to every IPv4 server.
    mutating func start(bases: [TransportAddress], servers: [TransportAddress], using generator: inout some RandomNumberGenerator) -> [Request] {
        var requests: [Request] = []
        for base in bases where base.ip.isIPv4 {
            for server in servers where server.ip.isIPv4 {
                let id = STUNTransactionID.random(using: &generator)
                guard let bytes = try? STUNMessage(type: .bindingRequest, transactionID: id).encoded(integrityKey: nil) else { continue }
                pending[id] = (base, server)
                requests.append(Request(bytes: bytes, from: base, to: server))
            }
        }
        return requests
    }

    var isComplete: Bool { pending.isEmpty }

    /// A datagram that answers one of our requests (true: consumed, whatever it said).
    mutating func receive(_ datagram: ByteBuffer, from source: TransportAddress) -> Bool {
        var copy = datagram
        guard let message = try? STUNMessage(from: &copy), let request = pending[message.transactionID], source == request.server else {
            return false
        }
        pending[message.transactionID] = nil
        guard message.type == .bindingSuccess, let mapped = message.xorMappedAddress, mapped != request.base,
              !candidates.contains(where: { $0.transportAddress == mapped }) else { return true }
        // Type preference 100 (RFC 8445 §5.1.2.2) below the host candidates of the same socket.
        candidates.append(ICECandidate(foundation: "srflx\(candidates.count + 1)",
                                       priority: ICECandidate.priority(kind: .srflx, localPreference: 65535, component: 1),
                                       address: mapped.ip.description, port: mapped.port, kind: .srflx,
                                       relatedAddress: request.base.ip.description, relatedPort: request.base.port))
        return true
    }
}
