import FuzzSupport
import RTMPFuzzChecks

// The check is FuzzTarget.rtmpChunkStream (Fuzz/FuzzChecks/RTMP/RTMPChunkStream.swift), which the corpus replay test runs too.
runLibFuzzer(.rtmpChunkStream)
