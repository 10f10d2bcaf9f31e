/// Bounds on a session description the parser accepts, so a hostile peer posting to the WHEP
/// endpoint cannot make us hold megabytes of attributes. The defaults leave room for the largest
/// real offers (Chromium with every codec and simulcast: about 15 KB, 20 sections, 700 attributes).
public struct SDPLimits: Sendable, Equatable {
    public var maximumBytes: Int
    public var maximumLineLength: Int
    public var maximumMediaSections: Int
    public var maximumAttributes: Int

    public init(maximumBytes: Int = 128 * 1024, maximumLineLength: Int = 4096,
                maximumMediaSections: Int = 64, maximumAttributes: Int = 4096) {
        self.maximumBytes = maximumBytes
        self.maximumLineLength = maximumLineLength
        self.maximumMediaSections = maximumMediaSections
        self.maximumAttributes = maximumAttributes
    }
}
