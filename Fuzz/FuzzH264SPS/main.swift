import FuzzSupport
import CodecFuzzChecks

// The check is FuzzTarget.h264SPS (Fuzz/FuzzChecks/Codec/H264SPS.swift), which the corpus replay test runs too.
runLibFuzzer(.h264SPS)
