import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.apiBodies (Fuzz/FuzzChecks/APIBodies.swift), which the corpus replay test runs too.
runLibFuzzer(.apiBodies)
