import FuzzCore
import NIOCore
import RTP

/// Compound RTCP datagrams as a WHEP viewer or an RTP receiver sends them back: SR, RR, SDES, BYE,
/// NACK, PLI, FIR, REMB, transport-wide congestion control feedback, XR (RRTR, DLRR) and unknown types, under both
/// the RFC 3550 compound rule and reduced size (RFC 5506). What parses must re-encode to the same
/// packets; NACK and transport-cc feedback must expand without trapping, as the sender does.
func checkRTCP(_ bytes: [UInt8]) throws(FuzzInvariantBroken) {
    let input = FuzzInput.byteBuffer(bytes)
    var strict = input
    _ = try? RTCPCompoundPacket(from: &strict, allowReducedSize: false)
    var buffer = input
    guard let compound = try? RTCPCompoundPacket(from: &buffer, allowReducedSize: true) else { return }
    try fuzzRequireWireRoundTrip(compound, encodedSize: compound.encodedSize) { $0.write(to: &$1) } decode: { try RTCPCompoundPacket(from: &$0, allowReducedSize: true) }
    for packet in compound.packets {
        switch packet {
        case .transportWideCC(let feedback):
            let results = feedback.packetResults
            try fuzzRequire(results.count == Int(feedback.packetStatusCount), "\(results.count) results for \(feedback.packetStatusCount) statuses")
        case .genericNACK(let nack):
            try fuzzRequire(nack.lostSequenceNumbers.count <= 17 * (nack.encodedSize / 4), "more losses than a NACK can name")
        case .extendedReport(let report):
            // The RRTR the sender answers with DLRR, read as the sender reads it.
            _ = report.receiverReferenceTime?.middle32
            try fuzzRequire(report.encodedSize % 4 == 0, "an XR of \(report.encodedSize) bytes")
        default:
            break
        }
    }
    return
}

extension FuzzTarget {
    public static let rtcp = FuzzTarget(name: "FuzzRTCP", check: checkRTCP)
}
