import FuzzCore
import WebRTC

/// Trickled ICE candidates (RFC 8840 fragments in WHIP/WHEP PATCH bodies, `a=candidate` lines).
/// A parsed candidate must print as `sdpValue` text that parses to the same candidate, and its
/// transport address, when it has one, must not trap.
func checkICECandidate(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    guard let text = FuzzInput.string(input), let candidate = try? ICECandidate(parsing: text) else { return }
    try fuzzRequireRoundTrip(candidate, encode: \.sdpValue, decode: ICECandidate.init(parsing:))
    _ = candidate.transportAddress
    return
}

extension FuzzTarget {
    public static let iceCandidate = FuzzTarget(name: "FuzzICECandidate", check: checkICECandidate)
}
