/// H.264 `profile-level-id` (RFC 6184 §8.1): three bytes in hex, `profile_idc`, `profile-iop`
/// (the constraint_set flags) and `level_idc`. Offer/answer compares the *profile* the first two
/// bytes denote (RFC 6184 §8.2.2, Table 5), not the bytes: `42e01f` and `4de01f` are both
/// Constrained Baseline. Levels may differ between the sides with `level-asymmetry-allowed=1`.
public struct H264ProfileLevelID: Sendable, Hashable, CustomStringConvertible {
    public enum Profile: Sendable, Hashable {
        case constrainedBaseline, baseline, main, extended, constrainedHigh, high, high444Predictive

        /// Profiles whose streams a decoder of `other` also decodes (Constrained Baseline is the
        /// common subset of Baseline, Main and Extended; Constrained High a subset of High).
        func isSubset(of other: Profile) -> Bool {
            switch (self, other) {
            case (let lhs, let rhs) where lhs == rhs: true
            case (.constrainedBaseline, .baseline), (.constrainedBaseline, .main), (.constrainedBaseline, .extended),
                 (.constrainedBaseline, .high), (.constrainedHigh, .high), (.main, .high): true
            default: false
            }
        }
    }

    /// RFC 6184 §8.1 default when an fmtp has none: Baseline, level 1.0.
    public static let `default` = H264ProfileLevelID(profileIDC: 0x42, profileIOP: 0x00, levelIDC: 0x0A)
    /// What livepush's encoder produces: Constrained Baseline 3.1 (every browser decodes it),
    /// Constrained High 3.1 and High 3.1.
    public static let constrainedBaseline31 = H264ProfileLevelID(profileIDC: 0x42, profileIOP: 0xE0, levelIDC: 0x1F)
    public static let constrainedHigh31 = H264ProfileLevelID(profileIDC: 0x64, profileIOP: 0x0C, levelIDC: 0x1F)
    public static let high31 = H264ProfileLevelID(profileIDC: 0x64, profileIOP: 0x00, levelIDC: 0x1F)

    public var profileIDC: UInt8
    public var profileIOP: UInt8
    public var levelIDC: UInt8

    public init(profileIDC: UInt8, profileIOP: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC
        self.profileIOP = profileIOP
        self.levelIDC = levelIDC
    }

    /// Parses the 6 hex digits; nil for anything else.
    public init?(_ text: String) {
        guard text.utf8.count == 6, let value = UInt32(text, radix: 16) else { return nil }
        self.init(profileIDC: UInt8(value >> 16), profileIOP: UInt8(value >> 8 & 0xFF), levelIDC: UInt8(value & 0xFF))
    }

    public var description: String {
        [profileIDC, profileIOP, levelIDC].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// One row of RFC 6184 Table 5 (and Constrained High from its successor drafts): a
    /// `profile_idc` and a pattern over `profile-iop` where `mask` selects the bits that must
    /// equal `value`.
    private struct Pattern {
        let profileIDC: UInt8
        let mask: UInt8
        let value: UInt8
        let profile: Profile
    }

    private static let patterns: [Pattern] = [
        Pattern(profileIDC: 0x42, mask: 0x4F, value: 0x40, profile: .constrainedBaseline), // x1xx0000
        Pattern(profileIDC: 0x4D, mask: 0x8F, value: 0x80, profile: .constrainedBaseline), // 1xxx0000
        Pattern(profileIDC: 0x58, mask: 0xCF, value: 0xC0, profile: .constrainedBaseline), // 11xx0000
        Pattern(profileIDC: 0x42, mask: 0x4F, value: 0x00, profile: .baseline),            // x0xx0000
        Pattern(profileIDC: 0x58, mask: 0xCF, value: 0x80, profile: .baseline),            // 10xx0000
        Pattern(profileIDC: 0x58, mask: 0xCF, value: 0x00, profile: .extended),            // 00xx0000
        Pattern(profileIDC: 0x4D, mask: 0xAF, value: 0x00, profile: .main),                // 0x0x0000
        Pattern(profileIDC: 0x64, mask: 0xFF, value: 0x0C, profile: .constrainedHigh),     // 00001100
        Pattern(profileIDC: 0x64, mask: 0xFF, value: 0x00, profile: .high),                // 00000000
        Pattern(profileIDC: 0xF4, mask: 0xFF, value: 0x00, profile: .high444Predictive),   // 00000000
    ]

    /// The profile the first two bytes denote; nil for combinations RFC 6184 does not name.
    public var profile: Profile? {
        Self.patterns.first { $0.profileIDC == profileIDC && profileIOP & $0.mask == $0.value }?.profile
    }

    /// Level 1b is `level_idc` 11 with constraint_set3 in Baseline-family and Main profiles, and
    /// `level_idc` 9 elsewhere; it sits between 1.0 and 1.1. Ordering on this value compares levels.
    var levelOrder: Int {
        let constraintSet3: UInt8 = 0x10
        let isLevel1b = levelIDC == 9 || (levelIDC == 11 && profileIOP & constraintSet3 != 0 && [0x42, 0x4D, 0x58].contains(profileIDC))
        return isLevel1b ? 105 : Int(levelIDC) * 10
    }

    /// The same profile bytes at the lower of the two levels.
    func atMostLevel(of other: H264ProfileLevelID) -> H264ProfileLevelID {
        other.levelOrder < levelOrder ? H264ProfileLevelID(profileIDC: profileIDC, profileIOP: profileIOP, levelIDC: other.levelIDC) : self
    }
}
