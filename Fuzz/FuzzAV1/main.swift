import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.av1 (Fuzz/FuzzChecks/AV1.swift), which the corpus replay test runs too.
runLibFuzzer(.av1)
