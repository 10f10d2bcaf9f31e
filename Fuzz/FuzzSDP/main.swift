import FuzzSupport
import WebRTCFuzzChecks

// The check is FuzzTarget.sdp (Fuzz/FuzzChecks/WebRTC/SDP.swift), which the corpus replay test runs too.
runLibFuzzer(.sdp)
