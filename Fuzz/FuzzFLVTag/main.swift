import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.flvTag (Fuzz/FuzzChecks/FLVTag.swift), which the corpus replay test runs too.
runLibFuzzer(.flvTag)
