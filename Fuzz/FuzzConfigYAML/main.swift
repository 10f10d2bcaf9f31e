import FuzzSupport
import ConfigFuzzChecks

// The check is FuzzTarget.configYAML (Fuzz/FuzzChecks/Config/ConfigYAML.swift), which the corpus replay test runs too.
runLibFuzzer(.configYAML)
