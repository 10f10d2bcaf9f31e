import FuzzSupport
import CodecFuzzChecks

// The check is FuzzTarget.hevcSPS (Fuzz/FuzzChecks/Codec/HEVCSPS.swift), which the corpus replay test runs too.
runLibFuzzer(.hevcSPS)
