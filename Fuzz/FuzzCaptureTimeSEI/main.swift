import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.captureTimeSEI (Fuzz/FuzzChecks/CaptureTimeSEI.swift), which the corpus replay test runs too.
runLibFuzzer(.captureTimeSEI)
