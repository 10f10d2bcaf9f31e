import NIOCore

/// One element of an RFC 8285 header extension: a locally negotiated ID (`a=extmap`) and its data.
public struct RTPHeaderExtensionElement: Sendable, Equatable {
    public var id: UInt8
    public var data: ByteBuffer

    public init(id: UInt8, data: ByteBuffer) {
        self.id = id
        self.data = data
    }
}

/// The RTP header extension block (RFC 3550 §5.3.1) with the RFC 8285 element forms.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |      defined by profile       |           length              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                        header extension                       |
///     |                             ....                              |
///
/// One-byte form (RFC 8285 §4.2), profile 0xBEDE: each element is `ID(4) | L(4)` then L+1 bytes,
/// IDs 1–14; a zero byte is padding; ID 15 stops parsing.
/// Two-byte form (RFC 8285 §4.3), profile 0x100X: each element is `ID(8) | length(8)` then length
/// bytes, IDs 1–255; a zero ID byte is padding.
///
/// The data stays the wire bytes (a slice, no copy); elements are validated once at init and then
/// looked up on demand, so a parsed packet never allocates an element array it does not ask for.
public struct RTPHeaderExtension: Sendable, Equatable {
    /// RFC 8285 §4.2 profile value for one-byte elements.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// RFC 8285 §4.3 profile value for two-byte elements; the low 4 bits are "appbits".
    public static let twoByteProfile: UInt16 = 0x1000
    static let twoByteProfileMask: UInt16 = 0xFFF0
    static let appBitsMask: UInt16 = 0x000F
    static let oneByteIDShift: UInt8 = 4
    static let oneByteLengthMask: UInt8 = 0x0F
    static let oneByteStopID: UInt8 = 15
    static let oneByteMaxID: UInt8 = 14
    static let oneByteMaxDataLength = 16
    static let twoByteMaxDataLength = 255
    static let paddingByte: UInt8 = 0
    /// Profile (2) + length (2).
    static let headerSize = 4
    static let maxWords = Int(UInt16.max)

    /// Which element form the profile selects.
    public enum Form: Sendable, Equatable {
        case oneByte
        case twoByte(appBits: UInt8)
        /// A non-RFC 8285 profile: the data is opaque.
        case other
    }

    public let profile: UInt16
    /// The extension data as on the wire, a multiple of 4 bytes.
    public let data: ByteBuffer

    /// Wraps wire data; throws if it is not word-aligned or, for RFC 8285 profiles, its elements are malformed.
    public init(profile: UInt16, data: ByteBuffer) throws(RTPError) {
        guard data.readableBytes % 4 == 0, data.readableBytes / 4 <= Self.maxWords else {
            throw .invalidLength(field: "header extension", length: data.readableBytes)
        }
        self.profile = profile
        self.data = data
        if let error = walkElements({ _, _ in true }) { throw error }
    }

    /// Builds a one-byte-form extension (IDs 1–14, 1–16 data bytes each), zero-padded to a word.
    public init(oneByteElements elements: [RTPHeaderExtensionElement]) throws(RTPError) {
        let size = elements.reduce(0) { $0 + 1 + $1.data.readableBytes }
        var data = ByteBuffer()
        data.reserveCapacity(size + paddingToWordBoundary(size))
        for element in elements {
            try Self.writeOneByteElement(id: element.id, length: element.data.readableBytes, to: &data) { $0.writeImmutableBuffer(element.data) }
        }
        Self.padOneByteBlock(in: &data, from: 0)
        try self.init(oneByteBlockIn: data, at: 0..<data.writerIndex)
    }

    /// Writes one one-byte-form element (ID 1–14, `length` 1–16 bytes, which `body` writes) at
    /// `buffer`'s writer index: with ``padOneByteBlock(in:from:)`` and ``init(oneByteBlockIn:at:)``, a block is built inside a buffer the
    /// caller owns anyway (a frame's send buffer), so a per-frame element costs no allocation.
    public static func writeOneByteElement(id: UInt8, length: Int, to buffer: inout ByteBuffer,
                                           _ body: (inout ByteBuffer) -> Void) throws(RTPError) {
        guard (1...oneByteMaxID).contains(id) else {
            throw .valueOutOfRange(field: "one-byte extension ID", value: Int(id))
        }
        guard (1...oneByteMaxDataLength).contains(length) else {
            throw .invalidLength(field: "one-byte extension element", length: length)
        }
        buffer.writeInteger(id << oneByteIDShift | UInt8(length - 1))
        let dataStart = buffer.writerIndex
        body(&buffer)
        guard buffer.writerIndex - dataStart == length else {
            throw .invalidLength(field: "one-byte extension element", length: buffer.writerIndex - dataStart)
        }
    }

    /// Zero-pads the one-byte-form elements written into `buffer` from index `start`
    /// (``writeOneByteElement(id:length:to:_:)``) to a word, ending a block there.
    public static func padOneByteBlock(in buffer: inout ByteBuffer, from start: Int) {
        buffer.writeZeros(paddingToWordBoundary(buffer.writerIndex - start))
    }

    /// The one-byte-form block at `range` of `buffer` (written and padded there), as a slice that
    /// shares `buffer`'s storage.
    public init(oneByteBlockIn buffer: ByteBuffer, at range: Range<Int>) throws(RTPError) {
        guard let data = buffer.getSlice(at: range.lowerBound, length: range.count) else {
            throw .truncated(needed: range.upperBound, available: buffer.writerIndex)
        }
        try self.init(profile: Self.oneByteProfile, data: data)
    }

    /// Builds a two-byte-form extension (IDs 1–255, 0–255 data bytes each), zero-padded to a word.
    public init(twoByteElements elements: [RTPHeaderExtensionElement], appBits: UInt8 = 0) throws(RTPError) {
        guard UInt16(appBits) <= Self.appBitsMask else {
            throw .valueOutOfRange(field: "appbits", value: Int(appBits))
        }
        var size = 0
        for element in elements {
            guard element.id != Self.paddingByte else {
                throw .valueOutOfRange(field: "two-byte extension ID", value: 0)
            }
            guard element.data.readableBytes <= Self.twoByteMaxDataLength else {
                throw .invalidLength(field: "two-byte extension element", length: element.data.readableBytes)
            }
            size += 2 + element.data.readableBytes
        }
        var data = ByteBuffer()
        data.reserveCapacity(size + paddingToWordBoundary(size))
        for element in elements {
            data.writeInteger(element.id)
            data.writeInteger(UInt8(element.data.readableBytes))
            data.writeImmutableBuffer(element.data)
        }
        data.writeZeros(paddingToWordBoundary(size))
        try self.init(profile: Self.twoByteProfile | UInt16(appBits), data: data)
    }

    public var form: Form {
        if profile == Self.oneByteProfile { return .oneByte }
        if profile & Self.twoByteProfileMask == Self.twoByteProfile {
            return .twoByte(appBits: UInt8(profile & Self.appBitsMask))
        }
        return .other
    }

    /// All elements in wire order (empty for a non-RFC 8285 profile).
    public var elements: [RTPHeaderExtensionElement] {
        var result: [RTPHeaderExtensionElement] = []
        _ = walkElements { id, data in
            result.append(RTPHeaderExtensionElement(id: id, data: data))
            return true
        }
        return result
    }

    /// The data of the first element with `id`, or nil.
    public func element(id: UInt8) -> ByteBuffer? {
        var found: ByteBuffer?
        _ = walkElements { elementID, data in
            if elementID == id { found = data }
            return found == nil
        }
        return found
    }

    /// Reads the block after the fixed header and CSRCs, when the X bit is set.
    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var copy = buffer
        let profile: UInt16 = try copy.readRequiredInteger()
        let words: UInt16 = try copy.readRequiredInteger()
        let data = try copy.readRequiredSlice(length: Int(words) * 4)
        try self.init(profile: profile, data: data)
        buffer = copy
    }

    public var encodedSize: Int { Self.headerSize + data.readableBytes }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(profile)
        buffer.writeInteger(UInt16(data.readableBytes / 4))
        buffer.writeImmutableBuffer(data)
    }

    /// Visits each element until `visit` returns false; returns the first structural error.
    private func walkElements(_ visit: (UInt8, ByteBuffer) -> Bool) -> RTPError? {
        let twoByte: Bool
        switch form {
        case .oneByte: twoByte = false
        case .twoByte: twoByte = true
        case .other: return nil
        }
        var cursor = data
        while let first = cursor.readInteger(as: UInt8.self) {
            if first == Self.paddingByte { continue }
            let id: UInt8
            let length: Int
            if twoByte {
                id = first
                guard let lengthByte = cursor.readInteger(as: UInt8.self) else {
                    return .truncated(needed: 1, available: 0)
                }
                length = Int(lengthByte)
            } else {
                id = first >> Self.oneByteIDShift
                if id == Self.oneByteStopID { return nil }
                length = Int(first & Self.oneByteLengthMask) + 1
            }
            guard let elementData = cursor.readSlice(length: length) else {
                return .truncated(needed: length, available: cursor.readableBytes)
            }
            if !visit(id, elementData) { return nil }
        }
        return nil
    }
}
