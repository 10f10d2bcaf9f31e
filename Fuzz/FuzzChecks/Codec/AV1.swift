import Codec
import FuzzCore

/// AV1 temporal units in the low-overhead format: the OBU split (headers, extensions, leb128
/// sizes), the sequence header fields outputs read (profiles, operating points, timing and decoder
/// model info, colour config) and the av1C record, which must hold the same sequence header.
func checkAV1(_ bytes: [UInt8]) throws(FuzzInvariantBroken) {
    guard let obus = try? AV1OBU.obus(in: bytes) else { return }
    var end = 0
    for obu in obus {
        try fuzzRequire(obu.range.lowerBound == end && obu.payloadRange.upperBound == obu.range.upperBound, "OBU \(obu) does not follow its predecessor")
        end = obu.range.upperBound
        guard obu.type == AV1OBUType.sequenceHeader else { continue }
        _ = try? AV1SequenceHeader(payload: Array(bytes[obu.payloadRange]))
        if let record = try? AV1CodecConfigurationRecord(sequenceHeaderOBU: Array(bytes[obu.range])) {
            let again = try? AV1CodecConfigurationRecord(sequenceHeaderOBU: record.sequenceHeaderOBU)
            try fuzzRequire(again?.sequenceHeader == record.sequenceHeader, "av1C's own OBU reads differently")
        }
    }
    try fuzzRequire(end == bytes.count, "OBUs cover \(end) of \(bytes.count) bytes")
    if let sets = try? ParameterSets(av1TemporalUnit: bytes) {
        _ = sets.pictureSize
        _ = try? sets.decoderConfigurationRecord()
    }
    return
}

extension FuzzTarget {
    public static let av1 = FuzzTarget(name: "FuzzAV1", check: checkAV1)
}
