import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.h264SPS (Fuzz/FuzzChecks/H264SPS.swift), which the corpus replay test runs too.
runLibFuzzer(.h264SPS)
