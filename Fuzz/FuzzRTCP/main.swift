import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.rtcp (Fuzz/FuzzChecks/RTCP.swift), which the corpus replay test runs too.
runLibFuzzer(.rtcp)
