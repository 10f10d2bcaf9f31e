import FuzzSupport
import NIOCore
import RTP

/// Compound RTCP datagrams as a WHEP viewer or an RTP receiver sends them back: SR, RR, SDES, BYE,
/// NACK, PLI, FIR, REMB, transport-wide congestion control feedback and unknown types, under both
/// the RFC 3550 compound rule and reduced size (RFC 5506). What parses must re-encode to the same
/// packets; NACK and transport-cc feedback must expand without trapping, as the sender does.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRTCP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput.byteBuffer(data, size)
    var strict = input
    _ = try? RTCPCompoundPacket(from: &strict, allowReducedSize: false)
    var buffer = input
    guard let compound = try? RTCPCompoundPacket(from: &buffer, allowReducedSize: true) else { return 0 }
    fuzzRequireWireRoundTrip(compound, encodedSize: compound.encodedSize) { $0.write(to: &$1) } decode: { try RTCPCompoundPacket(from: &$0, allowReducedSize: true) }
    for packet in compound.packets {
        switch packet {
        case .transportWideCC(let feedback):
            let results = feedback.packetResults
            fuzzRequire(results.count == Int(feedback.packetStatusCount), "\(results.count) results for \(feedback.packetStatusCount) statuses")
        case .genericNACK(let nack):
            fuzzRequire(nack.lostSequenceNumbers.count <= 17 * (nack.encodedSize / 4), "more losses than a NACK can name")
        default:
            break
        }
    }
    return 0
}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzRTCP)
