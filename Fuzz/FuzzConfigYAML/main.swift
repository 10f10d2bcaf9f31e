import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.configYAML (Fuzz/FuzzChecks/ConfigYAML.swift), which the corpus replay test runs too.
runLibFuzzer(.configYAML)
