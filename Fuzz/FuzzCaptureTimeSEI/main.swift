import FuzzSupport
import CodecFuzzChecks

// The check is FuzzTarget.captureTimeSEI (Fuzz/FuzzChecks/Codec/CaptureTimeSEI.swift), which the corpus replay test runs too.
runLibFuzzer(.captureTimeSEI)
