import NIOCore

/// Coordination of Video Orientation (CVO), 3GPP TS 26.114 §7.4.5: the one-byte RTP header
/// extension `urn:3gpp:video-orientation` that tells the receiver how to rotate and mirror the
/// picture, so a phone held sideways need not re-encode rotated frames.
///
///      0 1 2 3 4 5 6 7
///     +-+-+-+-+-+-+-+-+
///     |0 0 0 0 C F R R|
///     +-+-+-+-+-+-+-+-+
///
/// C = camera (0 front, 1 back), F = horizontal flip, R1R0 = rotation. The rotation values follow
/// WebRTC's mapping: R1R0 = 1 means the receiver rotates the picture 90° clockwise to display it
/// upright (TS 26.114 Table 7.2: "90° CCW or 270° CW" of the sent picture, which is undone by 90° CW).
/// The four high bits (granularity for the two-byte form) are ignored on read and written as zero.
public struct VideoOrientation: Sendable, Equatable {
    public static let uri = "urn:3gpp:video-orientation"
    static let cameraBit: UInt8 = 0b1000
    static let flipBit: UInt8 = 0b0100
    static let rotationMask: UInt8 = 0b0011

    public enum Camera: Sendable, Equatable {
        case front
        case back
    }

    /// Clockwise rotation the receiver applies before display.
    public enum Rotation: UInt8, Sendable, Equatable, CaseIterable {
        case degrees0 = 0
        case degrees90 = 1
        case degrees180 = 2
        case degrees270 = 3
    }

    public var camera: Camera
    public var horizontalFlip: Bool
    public var rotation: Rotation

    public init(camera: Camera = .front, horizontalFlip: Bool = false, rotation: Rotation = .degrees0) {
        self.camera = camera
        self.horizontalFlip = horizontalFlip
        self.rotation = rotation
    }

    public init(byte: UInt8) {
        camera = byte & Self.cameraBit != 0 ? .back : .front
        horizontalFlip = byte & Self.flipBit != 0
        // Two bits always map to a case.
        rotation = Rotation(rawValue: byte & Self.rotationMask) ?? .degrees0
    }

    public var byte: UInt8 {
        (camera == .back ? Self.cameraBit : 0) | (horizontalFlip ? Self.flipBit : 0) | rotation.rawValue
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        self.init(byte: try buffer.readRequiredInteger())
    }

    public var encodedSize: Int { 1 }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(byte)
    }

    /// A one-byte-form header extension carrying only this orientation under the negotiated `id`.
    public func headerExtension(id: UInt8) throws(RTPError) -> RTPHeaderExtension {
        try RTPHeaderExtension(oneByteElements: [element(id: id)])
    }

    /// This orientation as one element under the negotiated `id`, to share a block with others.
    public func element(id: UInt8) -> RTPHeaderExtensionElement {
        var data = ByteBuffer()
        write(to: &data)
        return RTPHeaderExtensionElement(id: id, data: data)
    }
}
