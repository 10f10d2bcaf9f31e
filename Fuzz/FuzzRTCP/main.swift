import FuzzSupport
import RTPFuzzChecks

// The check is FuzzTarget.rtcp (Fuzz/FuzzChecks/RTP/RTCP.swift), which the corpus replay test runs too.
runLibFuzzer(.rtcp)
