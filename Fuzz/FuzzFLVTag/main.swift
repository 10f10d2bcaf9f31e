import FuzzSupport
import RTMPFuzzChecks

// The check is FuzzTarget.flvTag (Fuzz/FuzzChecks/RTMP/FLVTag.swift), which the corpus replay test runs too.
runLibFuzzer(.flvTag)
