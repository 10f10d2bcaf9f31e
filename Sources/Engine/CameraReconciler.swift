import Config
import Overlay

/// What a reload does to a running camera, worked out from its old config and its new one alone:
/// no camera, process or socket is touched here, so every case is a plain unit test.
/// ``CameraRuntime/applyInPlace(_:)`` carries the actions out.
///
/// A camera changes in place only where that cannot be told from a restart: its outputs (each by
/// id), its bitrate (a single encode, without `renditions:`), its overlay. Anything else it
/// captures or encodes with restarts the whole camera, with the reasons.
public enum CameraReconciler {
    public enum Action: Sendable, Equatable {
        /// Stop the camera and start it again from the new config.
        case restartCamera(because: [RestartReason])
        /// Same settings: leave it running (an RTMP output stays on its connection).
        case keepOutput(id: String)
        /// New id: build it and attach it (it joins at a keyframe asked for at once).
        case startOutput(OutputConfig)
        /// New settings under an existing id: stop the running one, start this one.
        case replaceOutput(OutputConfig)
        /// Gone from the config: stop it (a recording is finalized).
        case stopOutput(id: String)
        /// The single encode's bitrate, changed on the running encoder.
        case setBitrate(bitsPerSecond: Int)
        /// The burned-in text, from the next frame on (nil removes it).
        case updateOverlay(OverlaySettings?)
    }

    /// Why a camera restarts rather than change in place.
    public enum RestartReason: Sendable, Equatable {
        /// The source or what it may open (`source`, `source_protocols`).
        case source
        /// How frames are captured: size, rate, rotation, mirror, controls, stall timeout.
        case capture
        /// The camera's `encoder:` beyond its bitrate, or its bitrate when it has `renditions:`.
        case encoder
        /// The renditions named were added, removed or changed (or reordered).
        case renditions([String])
        /// CPU adaptation (`adapt:`).
        case adaptation
        /// `on_demand:`.
        case onDemand
        /// Any other setting (none today; a new key restarts until it learns to change in place).
        case other
    }

    /// The actions that turn a camera running `old` into one running `new` (same camera id).
    ///
    /// Either one ``Action/restartCamera(because:)``, or, in this order: the outputs to stop (in
    /// `old`'s order), each of `new`'s outputs kept, started or replaced (in `new`'s order), then
    /// the bitrate and the overlay if they changed. Nothing changed: every output kept, nothing else.
    public static func actions(from old: CameraConfig, to new: CameraConfig) -> [Action] {
        let reasons = restartReasons(from: old, to: new)
        guard reasons.isEmpty else { return [.restartCamera(because: reasons)] }
        let before = Dictionary(old.outputs.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let kept = Set(new.outputs.map(\.id))
        var actions: [Action] = old.outputs.filter { !kept.contains($0.id) }.map { .stopOutput(id: $0.id) }
        for output in new.outputs {
            switch before[output.id] {
            case nil: actions.append(.startOutput(output))
            case output: actions.append(.keepOutput(id: output.id))
            default: actions.append(.replaceOutput(output))
            }
        }
        if new.encoder.bitrateBitsPerSecond != old.encoder.bitrateBitsPerSecond {
            actions.append(.setBitrate(bitsPerSecond: new.encoder.bitrateBitsPerSecond))
        }
        if new.overlay != old.overlay { actions.append(.updateOverlay(new.overlay)) }
        return actions
    }

    /// Why `new` cannot be applied in place; empty when it can.
    static func restartReasons(from old: CameraConfig, to new: CameraConfig) -> [RestartReason] {
        // What may change in place, set back to the old values: whatever still differs restarts.
        var rest = new
        rest.outputs = old.outputs
        // The bitrate changes in place only for a camera's single encode; any change to the renditions restarts it.
        if new.renditions.isEmpty { rest.encoder.bitrateBitsPerSecond = old.encoder.bitrateBitsPerSecond }
        rest.overlay = old.overlay
        guard rest != old else { return [] }
        var reasons: [RestartReason] = []
        if rest.source != old.source || rest.sourceProtocols != old.sourceProtocols { reasons.append(.source) }
        let capture = rest.size != old.size || rest.framesPerSecond != old.framesPerSecond || rest.rotation != old.rotation
            || rest.mirror != old.mirror || rest.controls != old.controls || rest.stallTimeoutSeconds != old.stallTimeoutSeconds
        if capture { reasons.append(.capture) }
        if rest.encoder != old.encoder { reasons.append(.encoder) }
        if rest.renditions != old.renditions { reasons.append(.renditions(changedRenditions(from: old.renditions, to: rest.renditions))) }
        if rest.adapt != old.adapt { reasons.append(.adaptation) }
        if rest.onDemand != old.onDemand { reasons.append(.onDemand) }
        return reasons.isEmpty ? [.other] : reasons
    }

    /// Names added, removed or changed, in the new list's order then the removed ones; the full
    /// new list when only the order changed (outputs that take "the first" follow the top).
    private static func changedRenditions(from old: [RenditionConfig], to new: [RenditionConfig]) -> [String] {
        let before = Dictionary(old.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let names = Set(new.map(\.name))
        let changed = new.filter { before[$0.name] != $0 }.map(\.name) + old.filter { !names.contains($0.name) }.map(\.name)
        return changed.isEmpty ? new.map(\.name) : changed
    }
}
