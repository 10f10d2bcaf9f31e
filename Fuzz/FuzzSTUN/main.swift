import FuzzSupport
import WebRTCFuzzChecks

// The check is FuzzTarget.stun (Fuzz/FuzzChecks/WebRTC/STUN.swift), which the corpus replay test runs too.
runLibFuzzer(.stun)
