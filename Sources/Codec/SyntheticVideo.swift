import MediaCore

/// Unpaced moving test frames for encoder tests and the bench: a textured diagonal pattern that
/// scrolls every frame (so the encoder does real motion search), a bouncing box, and the burned-in
/// ``MediaCore/FrameCode``. Capture's paced test pattern runs in real time; this one runs as fast
/// as the caller asks, with capture times spaced exactly 1/fps apart.
public struct SyntheticVideo {
    public let width: Int
    public let height: Int
    public let framesPerSecond: Int
    public let startNanos: Int64
    /// The texture, twice as wide as the frame so each row of a frame is one contiguous copy.
    private let texture: [UInt8]
    private let pool: FrameBufferPool

    /// `fineDetail` adds per-pixel texture that no bitrate below ~5 Mbps at 720p can hold, so the
    /// rate control, not the content, decides the output rate (for bitrate tests).
    public init(width: Int, height: Int, framesPerSecond: Int = 30, startNanos: Int64 = 1_000_000_000, poolCapacity: Int = 8,
                fineDetail: Bool = false) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.startNanos = startNanos
        pool = FrameBufferPool(capacity: poolCapacity)
        var texture = [UInt8](repeating: 0, count: 2 * width * height)
        for y in 0..<height {
            for x in 0..<(2 * width) {
                // Smooth diagonal bands plus 8x8-block detail: a camera-like load, not noise.
                let band = (x + 2 * y) & 0xFF
                let detail = fineDetail ? ((x * 7) ^ (y * 13)) & 0x3F : (((x >> 3) * 7) ^ ((y >> 3) * 13)) & 0x0F
                texture[y * 2 * width + x] = UInt8(16 + (band * 3 / 4 + detail) % 220)
            }
        }
        self.texture = texture
    }

    public func captureTimeNanos(frameNumber: Int) -> Int64 {
        startNanos + Int64(frameNumber) * 1_000_000_000 / Int64(framesPerSecond)
    }

    /// Frame `number`, drawn into a pooled buffer; nil when every pooled buffer is still held.
    public func frame(number: Int, rotation: VideoRotation = .none) throws(MediaError) -> VideoFrame? {
        guard let buffer = try pool.makeBuffer(width: width, height: height) else { return nil }
        let shift = (number * 4) % width
        texture.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            for row in 0..<height {
                (buffer.dataY + row * buffer.strideY).update(from: base + row * 2 * width + shift, count: width)
            }
            for row in 0..<buffer.chromaHeight {
                // Chroma moves with luma (half the pixels), as a real scene does.
                (buffer.dataU + row * buffer.strideU).update(from: base + row * 4 * width + shift / 2, count: buffer.chromaWidth)
                (buffer.dataV + row * buffer.strideV).update(from: base + row * 4 * width + width / 2 + shift / 2, count: buffer.chromaWidth)
            }
        }
        let box = max(8, height / 6) / 2 * 2
        let travel = max(1, width - box)
        let position = (number * 8) % (2 * travel)
        let boxX = (position < travel ? position : 2 * travel - position) / 2 * 2
        buffer.fillRect(x: boxX, y: height - 2 * box, width: box, height: box, color: .white)
        let captureTime = captureTimeNanos(frameNumber: number)
        try FrameCode(frameNumber: UInt32(truncatingIfNeeded: number), captureTimeNanos: UInt64(captureTime), wallClockMillis: 0)
            .burn(into: buffer)
        return VideoFrame(buffer: buffer, rotation: rotation, captureTimeNanos: captureTime, frameNumber: UInt64(number))
    }
}
