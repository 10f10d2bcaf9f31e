/// How the pictures an encoder took reached it, counted since it opened: as the very captured
/// buffer (no copy), or written anew by libyuv (turned, scaled here, or scaled once by a sibling
/// rendition of the same size through a ``SharedScaler``).
///
/// A frame can be both turned and scaled; one at capture size that needs no turn is only ``asCaptured``.
public struct FramePreparationCounts: Sendable, Equatable {
    /// Frames encoded from the captured buffer itself.
    public var asCaptured = 0
    /// Frames this encoder scaled (itself, or for its siblings through the shared scaler).
    public var scaled = 0
    /// Frames it took already scaled by a sibling rendition of the same size.
    public var scaledBySibling = 0
    /// Frames it turned physically (rotation the output cannot carry as metadata).
    public var rotated = 0

    public init() {}

    /// These counts with `other`'s added (a camera's renditions together).
    public func adding(_ other: FramePreparationCounts) -> FramePreparationCounts {
        var total = self
        total.asCaptured += other.asCaptured
        total.scaled += other.scaled
        total.scaledBySibling += other.scaledBySibling
        total.rotated += other.rotated
        return total
    }
}
