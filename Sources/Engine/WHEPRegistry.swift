import Synchronization
import WebRTCTransport

/// Each camera's current WHEP endpoint (a stopped output is replaced by a new one on start), so
/// the HTTP routes find the service a viewer's offer is for.
public final class WHEPRegistry: Sendable {
    /// The address viewers' media reaches: the HTTP listen host.
    public let udpHost: String
    private let services = Mutex<[String: WHEPService]>([:])

    public init(udpHost: String) { self.udpHost = udpHost }

    func set(_ service: WHEPService, for camera: String) { services.withLock { $0[camera] = service } }
    public func service(for camera: String) -> WHEPService? { services.withLock { $0[camera] } }
}
