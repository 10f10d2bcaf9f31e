import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.amf0 (Fuzz/FuzzChecks/AMF0.swift), which the corpus replay test runs too.
runLibFuzzer(.amf0)
