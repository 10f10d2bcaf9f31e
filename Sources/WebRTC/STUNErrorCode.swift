/// ERROR-CODE (RFC 8489 §14.8): a class (3–6) and number (0–99) plus a UTF-8 reason phrase.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           Reserved, should be 0         |Class|     Number    |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |      Reason Phrase (variable)                                ..
public struct STUNErrorCode: Sendable, Hashable {
    public static let badRequest = STUNErrorCode(code: 400, reason: "Bad Request")
    public static let unauthorized = STUNErrorCode(code: 401, reason: "Unauthorized")
    /// RFC 8445 §7.3.1.1: both agents claim the same role.
    public static let roleConflict = STUNErrorCode(code: 487, reason: "Role Conflict")

    static let validCodes = 300...699
    static let maximumReasonBytes = 763

    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }
}
