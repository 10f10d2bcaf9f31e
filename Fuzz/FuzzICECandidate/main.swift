import FuzzSupport
import WebRTCFuzzChecks

// The check is FuzzTarget.iceCandidate (Fuzz/FuzzChecks/WebRTC/ICECandidate.swift), which the corpus replay test runs too.
runLibFuzzer(.iceCandidate)
