import FuzzSupport
import ServerFuzzChecks

// The check is FuzzTarget.apiBodies (Fuzz/FuzzChecks/Server/APIBodies.swift), which the corpus replay test runs too.
runLibFuzzer(.apiBodies)
