import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.hevcSPS (Fuzz/FuzzChecks/HEVCSPS.swift), which the corpus replay test runs too.
runLibFuzzer(.hevcSPS)
