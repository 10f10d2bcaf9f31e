import Codec

/// Small H.264 access units whose NAL headers carry the reference information the drop policy reads.
enum TestFrames {
    /// nal_ref_idc 3, IDR slice.
    static let idr: UInt8 = 0x65
    /// nal_ref_idc 2, non-IDR slice (a P-frame others predict from).
    static let referenceSlice: UInt8 = 0x41
    /// nal_ref_idc 0, non-IDR slice (a disposable B-frame).
    static let disposableSlice: UInt8 = 0x01

    static func frame(_ header: UInt8, millis: Int64, payload: Int = 16) -> EncodedVideoFrame {
        let data = [0, 0, 0, 1, header] + [UInt8](repeating: 0xAB, count: payload)
        return EncodedVideoFrame(
            codec: .h264, data: data, nalUnitRanges: [4..<data.count], ptsNanos: millis * 1_000_000,
            dtsNanos: millis * 1_000_000, isKeyFrame: header == idr, parameterSets: ParameterSets(codec: .h264))
    }
}
