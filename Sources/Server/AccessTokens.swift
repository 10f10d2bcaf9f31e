import WebRTC

/// The tokens that grant each role (`api_token` for admin, `viewer_token` for viewer). Without an
/// admin token the server is open: every request is an admin's (safe on loopback only, which
/// `serve` enforces unless the config says `auth: none`).
package struct AccessTokens: Sendable, Equatable {
    package var admin: String?
    package var viewer: String?

    package init(admin: String?, viewer: String?) {
        self.admin = admin
        self.viewer = viewer
    }

    var isOpen: Bool { admin == nil }

    /// The role a presented token grants, or nil for a wrong one. Compared by digest, in constant
    /// time (``TokenDigest``).
    package func role(presenting token: String) -> AccessRole? {
        let presented = TokenDigest(of: token)
        // Both comparisons always run, so the time taken does not tell which token was close.
        let isAdmin = admin.map { TokenDigest(of: $0) == presented } ?? false
        let isViewer = viewer.map { TokenDigest(of: $0) == presented } ?? false
        return isAdmin ? .admin : isViewer ? .viewer : nil
    }
}
