import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.sdp (Fuzz/FuzzChecks/SDP.swift), which the corpus replay test runs too.
runLibFuzzer(.sdp)
