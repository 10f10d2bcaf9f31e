import FuzzChecks
import FuzzSupport

// The check is FuzzTarget.rtmpChunkStream (Fuzz/FuzzChecks/RTMPChunkStream.swift), which the corpus replay test runs too.
runLibFuzzer(.rtmpChunkStream)
