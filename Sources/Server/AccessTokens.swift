/// The tokens that grant each role (`api_token` for admin, `viewer_token` for viewer). Without an
/// admin token the server is open: every request is an admin's (safe on loopback only, which
/// `serve` enforces unless the config says `auth: none`).
struct AccessTokens: Sendable, Equatable {
    var admin: String?
    var viewer: String?

    var isOpen: Bool { admin == nil }

    /// The role a presented token grants, or nil for a wrong one. Compared in constant time.
    func role(presenting token: String) -> AccessRole? {
        let presented = Array(token.utf8)
        // Both comparisons always run, so the time taken does not tell which token was close.
        let isAdmin = admin.map { Self.constantTimeEqual(presented, Array($0.utf8)) } ?? false
        let isViewer = viewer.map { Self.constantTimeEqual(presented, Array($0.utf8)) } ?? false
        return isAdmin ? .admin : isViewer ? .viewer : nil
    }

    /// Compares every byte, so the time taken does not reveal the length of a matching prefix.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
