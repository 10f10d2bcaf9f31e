import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.iceCandidate (Fuzz/FuzzChecks/ICECandidate.swift), which the corpus replay test runs too.
runLibFuzzer(.iceCandidate)
