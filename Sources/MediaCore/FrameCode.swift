/// The machine-readable code burned into the top rows of test-pattern (and simulated-camera) frames,
/// carrying the frame number and capture times through encoders and networks so tests and the web
/// page can measure frame loss and glass-to-glass latency. Layout: docs/frame-code.md.
public struct FrameCode: Sendable, Equatable {
    public static let columns = 76
    public static let rows = 2
    public static let bitCount = columns * rows
    public static let minimumWidth = columns * 2
    static let threshold = 126
    static let wallClockBits = 48

    public var frameNumber: UInt32
    public var captureTimeNanos: UInt64
    /// Wall-clock capture time in milliseconds since the Unix epoch (48 bits are kept).
    public var wallClockMillis: UInt64

    public init(frameNumber: UInt32, captureTimeNanos: UInt64, wallClockMillis: UInt64) {
        self.frameNumber = frameNumber
        self.captureTimeNanos = captureTimeNanos
        self.wallClockMillis = wallClockMillis & ((1 << UInt64(Self.wallClockBits)) - 1)
    }

    /// Side of one block in pixels for a frame of this width.
    public static func blockSize(forWidth width: Int) -> Int { width / columns }

    /// Rows of the frame the code occupies.
    public static func bandHeight(forWidth width: Int) -> Int { blockSize(forWidth: width) * rows }

    /// The 19 bytes the blocks carry: fields big-endian, then the CRC-8.
    var payload: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(19)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: frameNumber >> UInt32(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: captureTimeNanos >> UInt64(shift))) }
        for shift in stride(from: 40, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: wallClockMillis >> UInt64(shift))) }
        bytes.append(Self.crc8(bytes))
        return bytes
    }

    /// Draws the code: black band, white blocks for one bits (neutral chroma under both).
    public func burn(into buffer: I420Buffer) throws(MediaError) {
        let size = Self.blockSize(forWidth: buffer.width)
        guard size >= 2, buffer.height >= size * Self.rows else {
            throw .frameTooSmallForCode(width: buffer.width, minimumWidth: Self.minimumWidth)
        }
        let bytes = payload
        buffer.fillRect(x: 0, y: 0, width: buffer.width, height: size * Self.rows, color: .black)
        for bit in 0..<Self.bitCount where bytes[bit / 8] & (0x80 >> UInt8(bit % 8)) != 0 {
            buffer.fillRect(x: (bit % Self.columns) * size, y: (bit / Self.columns) * size, width: size, height: size, color: .white)
        }
    }

    /// Reads a code back from a decoded luma plane; nil when there is none, its CRC fails, or it is
    /// all zeros (a black band, which the CRC alone would accept).
    public static func read(luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> FrameCode? {
        let size = blockSize(forWidth: width)
        guard size >= 2, height >= size * rows else { return nil }
        var bytes = [UInt8](repeating: 0, count: bitCount / 8)
        let inset = size / 4, span = max(1, size / 2)
        for bit in 0..<bitCount {
            let x = (bit % columns) * size + inset, y = (bit / columns) * size + inset
            var sum = 0
            for row in y..<(y + span) {
                for column in x..<(x + span) { sum += Int(luma[row * stride + column]) }
            }
            if sum / (span * span) >= threshold { bytes[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        }
        // All zeros passes a CRC with initial value 0: a black band is "no code", not frame 0.
        guard bytes.contains(where: { $0 != 0 }), crc8(bytes[0..<18]) == bytes[18] else { return nil }
        func field(_ range: Range<Int>) -> UInt64 { bytes[range].reduce(0) { $0 << 8 | UInt64($1) } }
        return FrameCode(frameNumber: UInt32(field(0..<4)), captureTimeNanos: field(4..<12), wallClockMillis: field(12..<18))
    }

    /// Reads a code from an I420 buffer.
    public static func read(from buffer: I420Buffer) -> FrameCode? {
        read(luma: buffer.dataY, stride: buffer.strideY, width: buffer.width, height: buffer.height)
    }

    /// CRC-8, polynomial 0x07, initial 0.
    static func crc8<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
