import CFreeType

/// Renders a line of UTF-8 text with FreeType into an 8-bit coverage bitmap the caller owns:
/// each glyph's outline is rasterized straight into the bitmap (FT_Outline_Get_Bitmap ORs it in),
/// so no glyph images are copied by hand. One face at one pixel size; owned by one thread.
final class GlyphRasterizer {
    private var library: FT_Library?
    private var face: FT_Face?
    let pixelSize: Int
    /// Baseline distance from the top of a line, and the line's height, in pixels.
    let ascender: Int
    let lineHeight: Int

    init(fontPath: String, pixelSize: Int) throws(OverlayError) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { throw .fontUnusable(fontPath, "FreeType did not start") }
        var face: FT_Face?
        guard FT_New_Face(library, fontPath, 0, &face) == 0, let face else {
            FT_Done_FreeType(library)
            throw .fontUnusable(fontPath, "not a font file FreeType can read")
        }
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize)) == 0 else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            throw .fontUnusable(fontPath, "cannot scale it to \(pixelSize) px")
        }
        self.library = library
        self.face = face
        self.pixelSize = pixelSize
        let metrics = face.pointee.size.pointee.metrics
        ascender = Int(metrics.ascender + 63) >> 6
        lineHeight = Int(metrics.ascender - metrics.descender + 63) >> 6
    }

    deinit {
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// The advance width of `text` in pixels (what ``render(_:into:width:height:stride:)`` needs).
    func width(of text: UnsafeBufferPointer<UInt8>) -> Int {
        var pen = 0
        forEachScalar(in: text) { scalar in
            guard let face, FT_Load_Char(face, FT_ULong(scalar), FT_Int32(FT_LOAD_NO_BITMAP)) == 0 else { return }
            pen += Int(face.pointee.glyph.pointee.advance.x + 32) >> 6
        }
        return pen
    }

    /// Rasterizes `text` into `bitmap` (coverage is ORed in: zero it first), baseline at
    /// ``ascender`` from the top, starting at x = `left`.
    func render(_ text: UnsafeBufferPointer<UInt8>, left: Int, into bitmap: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        guard let library, let face else { return }
        var target = FT_Bitmap()
        target.rows = UInt32(height)
        target.width = UInt32(width)
        target.pitch = Int32(stride)
        target.buffer = bitmap
        target.num_grays = 256
        target.pixel_mode = UInt8(FT_PIXEL_MODE_GRAY.rawValue)
        var pen = left
        forEachScalar(in: text) { scalar in
            guard FT_Load_Char(face, FT_ULong(scalar), FT_Int32(FT_LOAD_NO_BITMAP)) == 0 else { return }
            let slot = face.pointee.glyph!
            if slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE {
                // Outline y grows upwards from the bitmap's bottom row: the baseline sits `height - ascender` above it.
                FT_Outline_Translate(&slot.pointee.outline, FT_Pos(pen * 64), FT_Pos((height - ascender) * 64))
                FT_Outline_Get_Bitmap(library, &slot.pointee.outline, &target)
            }
            pen += Int(slot.pointee.advance.x + 32) >> 6
        }
    }

    private func forEachScalar(in text: UnsafeBufferPointer<UInt8>, _ body: (UInt32) -> Void) {
        var iterator = text.makeIterator()
        var decoder = UTF8()
        while case let .scalarValue(scalar) = decoder.decode(&iterator) { body(scalar.value) }
    }
}

/// Why an overlay cannot be drawn.
public enum OverlayError: Error, Equatable, CustomStringConvertible {
    case fontUnusable(String, String)
    case badSetting(String)

    public var description: String {
        switch self {
        case let .fontUnusable(path, reason): "overlay font \(path): \(reason); install fonts-dejavu-core or give overlay.font a .ttf file"
        case let .badSetting(reason): "overlay: \(reason)"
        }
    }
}
