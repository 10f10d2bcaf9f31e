import FuzzSupport
import CodecFuzzChecks

// The check is FuzzTarget.av1 (Fuzz/FuzzChecks/Codec/AV1.swift), which the corpus replay test runs too.
runLibFuzzer(.av1)
