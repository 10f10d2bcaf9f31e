/// How an output carries each frame's capture time to the receiver (`capture_time:` in the config,
/// `--capture-time` on the command line).
public enum CaptureTimeSignal: String, Sendable, CaseIterable, Equatable {
    /// A ``CaptureTimeSEI`` in every H.264/H.265 access unit (docs/capture-time.md).
    case sei
    /// Nothing added to the stream.
    case none
}
