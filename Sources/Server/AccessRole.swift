/// What a request may do. A viewer watches (the dashboard's read-only views, snapshots, metrics and
/// WHEP); an admin also changes things (outputs, sources, bitrate, controls). Admin includes viewer.
public enum AccessRole: String, Sendable, Codable, Comparable {
    case viewer, admin

    public static func < (lhs: AccessRole, rhs: AccessRole) -> Bool { lhs == .viewer && rhs == .admin }
}
