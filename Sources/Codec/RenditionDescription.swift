/// One of a camera's encodes (its "renditions": 1080p for YouTube, 480p for phones), as an output
/// that serves several of them sees it. Index 0 is the top rendition; the list is ordered by
/// bitrate, highest first, so a receiver whose link shrinks moves to a higher index.
public struct RenditionDescription: Sendable, Equatable {
    /// The name outputs refer to it by (`rendition: 720p` in the config).
    public var name: String
    public var width: Int
    public var height: Int
    public var framesPerSecond: Int
    public var bitrateBitsPerSecond: Int

    public init(name: String, width: Int, height: Int, framesPerSecond: Int, bitrateBitsPerSecond: Int) {
        self.name = name
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.bitrateBitsPerSecond = bitrateBitsPerSecond
    }
}
