import FuzzSupport
import WebRTC

/// Trickled ICE candidates (RFC 8840 fragments in WHIP/WHEP PATCH bodies, `a=candidate` lines).
/// A parsed candidate must print as `sdpValue` text that parses to the same candidate, and its
/// transport address, when it has one, must not trap.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzICECandidate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let text = FuzzInput.string(data, size), let candidate = try? ICECandidate(parsing: text) else { return 0 }
    fuzzRequireRoundTrip(candidate, encode: \.sdpValue, decode: ICECandidate.init(parsing:))
    _ = candidate.transportAddress
    return 0
}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzICECandidate)
