import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.stun (Fuzz/FuzzChecks/STUN.swift), which the corpus replay test runs too.
runLibFuzzer(.stun)
