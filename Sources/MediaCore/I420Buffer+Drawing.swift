import CYUV

/// A YUV colour (BT.601, limited range) for drawing test cards.
public struct YUVColor: Sendable, Equatable {
    public var y: UInt8, u: UInt8, v: UInt8
    public init(y: UInt8, u: UInt8, v: UInt8) { self.y = y; self.u = u; self.v = v }

    public static let black = YUVColor(y: 16, u: 128, v: 128)
    public static let white = YUVColor(y: 235, u: 128, v: 128)
    /// SMPTE 75 % colour bars, left to right.
    public static let colorBars = [
        YUVColor(y: 180, u: 128, v: 128), YUVColor(y: 162, u: 44, v: 142), YUVColor(y: 131, u: 156, v: 44),
        YUVColor(y: 112, u: 72, v: 58), YUVColor(y: 84, u: 184, v: 198), YUVColor(y: 65, u: 100, v: 212),
        YUVColor(y: 35, u: 212, v: 114), YUVColor(y: 16, u: 128, v: 128),
    ]
}

extension I420Buffer {
    /// Fills a rectangle (clipped to the picture) with libyuv's I420Rect.
    /// Even x/y/width keep chroma aligned; odd values round outward to the chroma grid.
    public func fillRect(x: Int, y: Int, width rectWidth: Int, height rectHeight: Int, color: YUVColor) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + rectWidth), y1 = min(height, y + rectHeight)
        guard x1 > x0, y1 > y0 else { return }
        I420Rect(dataY, Int32(strideY), dataU, Int32(strideU), dataV, Int32(strideV),
                 Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0),
                 Int32(color.y), Int32(color.u), Int32(color.v))
    }
}
