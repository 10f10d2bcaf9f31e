import CodecFuzzChecks
import ConfigFuzzChecks
import FuzzCore
import RTMPFuzzChecks
import RTPFuzzChecks
import ServerFuzzChecks
import WebRTCFuzzChecks

extension FuzzTarget {
    /// Every target, one per `Fuzz/<name>/main.swift` (the corpus replay test checks that). Each
    /// fuzz executable links only its own area's checks (a module per parser area), so libFuzzer
    /// scans only those parsers' coverage counters after every input, not the whole package's.
    public static let all: [FuzzTarget] = [
        rtpPacket, rtcp, rtmpChunkStream, amf0, flvTag, stun, iceCandidate, sdp, h264SPS, hevcSPS, av1, configYAML, apiBodies,
        captureTimeSEI,
    ]
}
