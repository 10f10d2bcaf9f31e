import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.rtpPacket (Fuzz/FuzzChecks/RTPPacket.swift), which the corpus replay test runs too.
runLibFuzzer(.rtpPacket)
