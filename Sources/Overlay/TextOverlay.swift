import CYUV
import MediaCore
import Synchronization

/// Burns a camera's text overlay (a clock, a title, a score) into each frame on the capture thread,
/// before snapshots and the encode, so every output shows it. The text is expanded from its
/// template for the frame's own capture time; glyphs are rasterized by FreeType into a coverage
/// bitmap only when the text changes; a box and then the text are blended onto the frame with
/// libyuv's I420Blend. Steady state allocates nothing: scratch planes grow to the largest box seen
/// and are reused. ``update(_:)`` swaps the settings between two frames (the API, a reload).
public final class TextOverlay: VideoFrameProcessor {
    /// Settings handed over by ``update(_:)``, picked up by the next frame.
    private let pending: Mutex<OverlaySettings??>
    private let drawing: Mutex<Drawing>
    private let camera: String
    /// Relates capture times (monotonic) to the wall clock the text shows.
    private let clock = WallClockMapping.sampleNow()

    /// Drawing state: used by the capture thread only (the lock is uncontended).
    private struct Drawing {
        var settings: OverlaySettings?
        var text: OverlayText?
        var rasterizer: GlyphRasterizer?
        var textBytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 512)
        var lastText = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 512)
        var lastTextCount = -1
        /// The advance width of the last text, so an unchanged text loads no glyph.
        var lastTextWidth = 0
        var scratch: Scratch?
        var lastError: OverlayError?
    }

    /// Planes the size of the largest box so far: the text colour, the box colour, the box's
    /// constant alpha, and the glyph coverage.
    private final class Scratch {
        let width: Int, height: Int
        let textColor: I420Buffer, boxColor: I420Buffer
        let boxAlpha: UnsafeMutablePointer<UInt8>, glyphs: UnsafeMutablePointer<UInt8>
        var glyphWidth = 0

        init(width: Int, height: Int, settings: OverlaySettings) throws(MediaError) {
            self.width = width
            self.height = height
            textColor = try I420Buffer(width: width, height: height)
            boxColor = try I420Buffer(width: width, height: height)
            boxAlpha = .allocate(capacity: width * height)
            glyphs = .allocate(capacity: width * height)
            paint(settings)
        }

        func paint(_ settings: OverlaySettings) {
            textColor.fill(y: settings.color.y, u: settings.color.u, v: settings.color.v)
            boxColor.fill(y: settings.background.y, u: settings.background.u, v: settings.background.v)
            boxAlpha.update(repeating: UInt8((settings.backgroundOpacity * 255).rounded()), count: width * height)
        }

        deinit {
            boxAlpha.deallocate()
            glyphs.deallocate()
        }
    }

    public init(camera: String, settings: OverlaySettings?) {
        self.camera = camera
        pending = Mutex(.some(settings))
        drawing = Mutex(Drawing())
    }

    deinit {
        drawing.withLock { drawing in
            drawing.textBytes.deallocate()
            drawing.lastText.deallocate()
        }
    }

    /// Replaces the settings from the next frame on; nil removes the overlay. Throws, changing
    /// nothing, when the font cannot be used.
    public func update(_ settings: OverlaySettings?) throws(OverlayError) {
        if let settings { try Self.validate(settings) }
        pending.withLock { $0 = .some(settings) }
    }

    /// What is drawn now (nil: nothing).
    public var settings: OverlaySettings? {
        pending.withLock { pending in pending ?? nil } ?? drawing.withLock { $0.settings }
    }

    /// Checks a font and size before they are taken.
    public static func validate(_ settings: OverlaySettings) throws(OverlayError) {
        guard (8...512).contains(settings.size) else { throw .badSetting("size \(settings.size) must be 8–512 pixels") }
        guard (0...1).contains(settings.backgroundOpacity) else { throw .badSetting("background_opacity must be 0–1") }
        _ = try GlyphRasterizer(fontPath: settings.fontPath, pixelSize: settings.size)
    }

    public func process(_ frame: VideoFrame) {
        let update = pending.withLock { pending -> OverlaySettings?? in
            defer { pending = nil }
            return pending
        }
        let wallNanos = frame.wallClockNanos(using: clock)
        drawing.withLock { drawing in
            if let update { apply(update, to: &drawing) }
            draw(on: frame.buffer, seconds: Int(wallNanos / 1_000_000_000), milliseconds: Int(wallNanos / 1_000_000 % 1000), state: &drawing)
        }
    }

    private func apply(_ settings: OverlaySettings?, to drawing: inout Drawing) {
        let old = drawing.settings
        drawing.settings = settings
        drawing.lastTextCount = -1
        guard let settings, !settings.text.isEmpty else {
            drawing.text = nil
            return
        }
        drawing.text = OverlayText(template: settings.text, camera: camera)
        if old?.fontPath != settings.fontPath || old?.size != settings.size || drawing.rasterizer == nil {
            do {
                drawing.rasterizer = try GlyphRasterizer(fontPath: settings.fontPath, pixelSize: settings.size)
            } catch {
                drawing.rasterizer = nil
                drawing.lastError = error
            }
            drawing.scratch = nil
        }
        drawing.scratch?.paint(settings)
    }

    private func draw(on buffer: I420Buffer, seconds: Int, milliseconds: Int, state: inout Drawing) {
        guard let settings = state.settings, let text = state.text, let rasterizer = state.rasterizer else { return }
        let count = text.expand(seconds: seconds, milliseconds: milliseconds, into: state.textBytes)
        let bytes = UnsafeBufferPointer(rebasing: state.textBytes[0..<count])
        let padding = max(2, settings.size / 4) & ~1
        let unchanged = count == state.lastTextCount && state.lastText.prefix(count).elementsEqual(bytes)
        let textWidth = unchanged ? state.lastTextWidth : rasterizer.width(of: bytes)
        let boxWidth = min((textWidth + 2 * padding + 1) & ~1, buffer.width & ~1)
        let boxHeight = min((rasterizer.lineHeight + padding + 1) & ~1, buffer.height & ~1)
        guard boxWidth > 0, boxHeight > 0 else { return }
        if state.scratch.map({ $0.width < boxWidth || $0.height < boxHeight }) ?? true {
            // Grows to a little more than needed, so a clock whose digits change width does not reallocate.
            let width = boxWidth + boxWidth / 4 + 2 & ~1, height = boxHeight
            guard let scratch = try? Scratch(width: width, height: height, settings: settings) else { return }
            state.scratch = scratch
            state.lastTextCount = -1
        }
        guard let scratch = state.scratch else { return }
        if !unchanged || state.lastTextCount != count || scratch.glyphWidth != boxWidth {
            scratch.glyphs.update(repeating: 0, count: scratch.width * boxHeight)
            let top = padding / 2
            rasterizer.render(bytes, left: padding, into: scratch.glyphs + top * scratch.width, width: boxWidth, height: boxHeight - top, stride: scratch.width)
            _ = UnsafeMutableBufferPointer(rebasing: state.lastText[0..<count]).update(fromContentsOf: bytes)
            state.lastTextCount = count
            state.lastTextWidth = textWidth
            scratch.glyphWidth = boxWidth
        }
        let margin = max(2, settings.size / 2) & ~1
        let x = settings.position == .topLeft || settings.position == .bottomLeft ? margin : buffer.width - boxWidth - margin
        let y = settings.position == .topLeft || settings.position == .topRight ? margin : buffer.height - boxHeight - margin
        let left = max(0, x) & ~1, top = max(0, y) & ~1
        if settings.backgroundOpacity > 0 { blend(scratch.boxColor, alpha: scratch.boxAlpha, stride: scratch.width, onto: buffer, x: left, y: top, width: boxWidth, height: boxHeight) }
        blend(scratch.textColor, alpha: scratch.glyphs, stride: scratch.width, onto: buffer, x: left, y: top, width: boxWidth, height: boxHeight)
    }

    /// libyuv I420Blend of `color` over the frame's rectangle, weighted by `alpha`, in place.
    private func blend(_ color: I420Buffer, alpha: UnsafeMutablePointer<UInt8>, stride: Int, onto frame: I420Buffer, x: Int, y: Int, width: Int, height: Int) {
        let width = min(width, frame.width - x), height = min(height, frame.height - y)
        guard width > 0, height > 0 else { return }
        let frameY = frame.dataY + y * frame.strideY + x
        let frameU = frame.dataU + y / 2 * frame.strideU + x / 2
        let frameV = frame.dataV + y / 2 * frame.strideV + x / 2
        I420Blend(color.dataY, Int32(color.strideY), color.dataU, Int32(color.strideU), color.dataV, Int32(color.strideV),
                  frameY, Int32(frame.strideY), frameU, Int32(frame.strideU), frameV, Int32(frame.strideV),
                  alpha, Int32(stride),
                  frameY, Int32(frame.strideY), frameU, Int32(frame.strideU), frameV, Int32(frame.strideV),
                  Int32(width), Int32(height))
    }

    /// The last font error, for status (nil when drawing works).
    public var lastError: OverlayError? { drawing.withLock { $0.lastError } }
}
