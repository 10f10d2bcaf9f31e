import FuzzSupport
import RTMPFuzzChecks

// The check is FuzzTarget.amf0 (Fuzz/FuzzChecks/RTMP/AMF0.swift), which the corpus replay test runs too.
runLibFuzzer(.amf0)
