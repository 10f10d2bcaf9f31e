#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An I420 (planar YUV 4:2:0) picture: three planes with their strides, in one aligned allocation.
///
/// Modelled on WebRTC's `I420Buffer`: the pixels live here, while rotation and timestamps live on
/// ``VideoFrame``. Buffers are reference types so a frame fans out to several consumers without
/// copying; a ``FrameBufferPool`` reuses a buffer once every consumer has let go of it.
///
/// Thread safety: the producer fills the planes before it publishes the frame; after that every
/// holder only reads. The pool hands a buffer out again only when it holds the last reference.
public final class I420Buffer: @unchecked Sendable {
    /// Largest width or height accepted anywhere in the pipeline (8K is 7680).
    public static let maximumDimension = 16_384
    /// Row alignment in bytes, so SIMD row functions in libyuv and encoders stay on fast paths.
    public static let rowAlignment = 64

    public let width: Int
    public let height: Int
    public let strideY: Int
    public let strideU: Int
    public let strideV: Int
    public let dataY: UnsafeMutablePointer<UInt8>
    public let dataU: UnsafeMutablePointer<UInt8>
    public let dataV: UnsafeMutablePointer<UInt8>
    /// Bytes of the one allocation holding all three planes.
    public let allocationSize: Int
    private let allocation: UnsafeMutableRawPointer

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Allocates an uninitialized buffer. Prefer ``FrameBufferPool/makeBuffer(width:height:)`` on hot paths.
    public init(width: Int, height: Int) throws(MediaError) {
        try Self.validate(width: width, height: height)
        self.width = width
        self.height = height
        strideY = Self.aligned(width)
        strideU = Self.aligned((width + 1) / 2)
        strideV = strideU
        let sizeY = strideY * height
        let sizeChroma = strideU * ((height + 1) / 2)
        allocationSize = sizeY + 2 * sizeChroma
        var raw: UnsafeMutableRawPointer?
        guard posix_memalign(&raw, Self.rowAlignment, allocationSize) == 0, let raw else {
            throw .invalidDimensions(width: width, height: height)
        }
        allocation = raw
        dataY = raw.assumingMemoryBound(to: UInt8.self)
        dataU = dataY + sizeY
        dataV = dataU + sizeChroma
    }

    deinit { free(allocation) }

    /// Checks a size against the pipeline's limits.
    public static func validate(width: Int, height: Int) throws(MediaError) {
        guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height) else {
            throw .invalidDimensions(width: width, height: height)
        }
    }

    private static func aligned(_ value: Int) -> Int {
        (value + rowAlignment - 1) / rowAlignment * rowAlignment
    }

    /// Fills the whole picture with one colour (used for placeholder cards and tests).
    public func fill(y: UInt8, u: UInt8, v: UInt8) {
        dataY.update(repeating: y, count: strideY * height)
        dataU.update(repeating: u, count: strideU * chromaHeight)
        dataV.update(repeating: v, count: strideV * chromaHeight)
    }

    /// Copies the visible pixels (without stride padding) into a tightly packed I420 byte array,
    /// the layout of ffmpeg's `-pix_fmt yuv420p` raw output. For tests, snapshots and tools, not hot paths.
    public func packedBytes() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(width * height + 2 * chromaWidth * chromaHeight)
        for (data, stride, w, h) in planes {
            for row in 0..<h {
                out.append(contentsOf: UnsafeBufferPointer(start: data + row * stride, count: w))
            }
        }
        return out
    }

    /// The planes as (pointer, stride, width, height), Y first.
    public var planes: [(UnsafeMutablePointer<UInt8>, Int, Int, Int)] {
        [(dataY, strideY, width, height), (dataU, strideU, chromaWidth, chromaHeight),
         (dataV, strideV, chromaWidth, chromaHeight)]
    }
}
