import MediaCore
import Testing

/// Every invalid input is refused with a typed error before libyuv reads a byte.
@Suite struct BadInputTests {
    static func convert(_ bytes: [UInt8], _ format: PixelFormat, _ width: Int, _ height: Int, bytesPerLine: Int? = nil,
                        into size: (Int, Int)? = nil) throws {
        let buffer = try I420Buffer(width: size?.0 ?? max(1, min(width, 64)), height: size?.1 ?? max(1, min(height, 64)))
        try bytes.withUnsafeBytes {
            try buffer.convert(from: RawPicture(bytes: $0, format: format, width: width, height: height, bytesPerLine: bytesPerLine))
        }
    }

    @Test func oddWidthForPackedYUV() {
        #expect(throws: MediaError.oddDimensions(format: .yuyv, width: 63, height: 64)) {
            try Self.convert([UInt8](repeating: 0, count: 64 * 64 * 2), .yuyv, 63, 64)
        }
    }

    @Test func strideSmallerThanRow() {
        #expect(throws: MediaError.strideTooSmall(plane: "nv12 row", stride: 32, minimum: 64)) {
            try Self.convert([UInt8](repeating: 0, count: 64 * 96), .nv12, 64, 64, bytesPerLine: 32)
        }
    }

    @Test(arguments: [PixelFormat.i420, .nv12, .yuyv, .uyvy, .rgb24, .bgra, .argb])
    func bufferOneByteShort(format: PixelFormat) {
        let needed = RawPicture.packedSize(format: format, width: 64, height: 64)
        #expect(throws: MediaError.bufferTooSmall(format: format, needed: needed, available: needed - 1)) {
            try Self.convert([UInt8](repeating: 0, count: needed - 1), format, 64, 64)
        }
    }

    @Test(arguments: [(0, 64), (64, 0), (-2, 64), (20_000, 64), (64, 1 << 40)])
    func absurdDimensions(width: Int, height: Int) {
        #expect(throws: MediaError.invalidDimensions(width: width, height: height)) {
            try Self.convert([UInt8](repeating: 0, count: 16), .i420, width, height)
        }
        #expect(throws: MediaError.invalidDimensions(width: width, height: height)) { try I420Buffer(width: width, height: height) }
    }

    @Test func destinationOfAnotherSize() {
        #expect(throws: MediaError.sizeMismatch(expectedWidth: 64, expectedHeight: 64, width: 32, height: 32)) {
            try Self.convert([UInt8](repeating: 0, count: 64 * 64 * 2), .yuyv, 64, 64, into: (32, 32))
        }
    }

    @Test(arguments: [0, 1, 10, 600])
    func corruptMJPEG(length: Int) {
        var generator = SeededBytes(seed: UInt64(length))
        let garbage = (0..<length).map { _ in generator.next() }
        #expect(throws: MediaError.corruptJPEG(bytes: length)) { try Self.convert(garbage, .mjpeg, 64, 64) }
    }

    @Test func truncatedMJPEG() throws {
        // A valid SOI + APP0 header, then the stream stops.
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        #expect(throws: MediaError.corruptJPEG(bytes: header.count)) { try Self.convert(header, .mjpeg, 64, 64) }
    }

    @Test func rotationDegreesMustBeRightAngles() {
        #expect(throws: MediaError.invalidRotation(degrees: 45)) { try VideoRotation(degrees: 45) }
        #expect((try? VideoRotation(degrees: -90)) == .clockwise270)
    }

    @Test func cropOutsideFrame() throws {
        let source = try I420Buffer(width: 64, height: 64), target = try I420Buffer(width: 32, height: 32)
        #expect(throws: MediaError.invalidCrop(x: 40, y: 0, width: 32, height: 32, sourceWidth: 64, sourceHeight: 64)) {
            try source.crop(x: 40, y: 0, into: target)
        }
        #expect(throws: MediaError.invalidCrop(x: 1, y: 0, width: 32, height: 32, sourceWidth: 64, sourceHeight: 64)) {
            try source.crop(x: 1, y: 0, into: target)
        }
    }
}

/// A small deterministic byte generator (xorshift) for garbage inputs.
struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt8 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}
