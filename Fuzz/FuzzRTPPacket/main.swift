import FuzzSupport
import RTPFuzzChecks

// The check is FuzzTarget.rtpPacket (Fuzz/FuzzChecks/RTP/RTPPacket.swift), which the corpus replay test runs too.
runLibFuzzer(.rtpPacket)
