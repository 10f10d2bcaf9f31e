/// A width and height in pixels, written `1280x720` on the command line and in configs (Capture's
/// `VideoSize(parsing:)` reads that form and reports a bad one as a capture setting).
public struct VideoSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}
