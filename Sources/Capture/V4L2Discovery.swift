import Foundation

/// Finds cameras: every `/dev/video*` node that is a video capture device (UVC metadata nodes
/// and M2M codecs are skipped), plus the simulated nodes of scripts/v4l2sim when it is preloaded,
/// and resolves what users type after `--source` to a node.
public enum V4L2Discovery {
    /// Candidate node paths, in a stable order: /dev/video0, /dev/video1, …, then simulated nodes.
    public static func candidateNodes(environment: [String: String] = ProcessInfo.processInfo.environment,
                                      devDirectory: String = "/dev") -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: devDirectory)) ?? []
        let real = entries.filter { $0.hasPrefix("video") }
            .sorted { (Int($0.dropFirst(5)) ?? .max, $0) < (Int($1.dropFirst(5)) ?? .max, $1) }
            .map { "\(devDirectory)/\($0)" }
        var nodes: [String] = []
        for node in real + simulatedNodes(environment: environment) where !nodes.contains(node) { nodes.append(node) }
        return nodes
    }

    /// The simulator's node list, mirroring its own rule (scripts/v4l2sim/config.c):
    /// LIVEPUSH_SIM_DEVICES, else the config file's `[node]` sections, else /dev/video-sim0 —
    /// and nothing when the simulator is not preloaded.
    static func simulatedNodes(environment: [String: String]) -> [String] {
        guard environment["LD_PRELOAD"]?.contains("v4l2sim") == true else { return [] }
        if let list = environment["LIVEPUSH_SIM_DEVICES"], !list.isEmpty {
            return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let file = environment["LIVEPUSH_SIM_CONFIG"], let text = try? String(contentsOfFile: file, encoding: .utf8) {
            let sections = text.split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("["), trimmed.hasSuffix("]") else { return nil }
                return String(trimmed.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
            }
            if !sections.isEmpty { return sections }
        }
        return ["/dev/video-sim0"]
    }

    /// The capture devices among ``candidateNodes(environment:devDirectory:)`` with their formats.
    /// Nodes that cannot be opened are reported in `unavailable` (busy, no permission) rather
    /// than silently left out.
    public static func cameras() -> (cameras: [V4L2DeviceInfo], unavailable: [(path: String, error: CaptureError)]) {
        var cameras: [V4L2DeviceInfo] = [], unavailable: [(String, CaptureError)] = []
        for node in candidateNodes() {
            do {
                let device = try V4L2Device(path: node)
                defer { device.close() }
                let capabilities = try device.capabilities()
                guard capabilities.isVideoCapture else { continue }
                cameras.append(V4L2DeviceInfo(path: node, index: cameras.count, capabilities: capabilities, formats: try device.formats()))
            } catch {
                unavailable.append((node, error))
            }
        }
        return (cameras, unavailable)
    }

    /// The node for a camera selector: a path (`/dev/video0`, `/dev/v4l/by-id/…`, followed if a
    /// symlink), `camera:INDEX` (position in `livepush devices`), or `camera:NAME` (card name,
    /// case-insensitive; a unique substring is enough).
    public static func resolve(_ selector: String) throws(CaptureError) -> String {
        guard selector.hasPrefix(SourceSpec.cameraPrefix) else { return selector }
        let key = String(selector.dropFirst(SourceSpec.cameraPrefix.count))
        let found = cameras().cameras
        if let index = Int(key) {
            guard found.indices.contains(index) else { throw .deviceNotFound(path: selector) }
            return found[index].path
        }
        if let exact = found.first(where: { $0.capabilities.card.caseInsensitiveCompare(key) == .orderedSame }) { return exact.path }
        let partial = found.filter { $0.capabilities.card.localizedCaseInsensitiveContains(key) }
        guard partial.count == 1 else {
            throw partial.isEmpty ? .deviceNotFound(path: selector)
                : .invalidSetting(name: "source", value: selector,
                                  hint: "several cameras match (\(partial.map(\.capabilities.card).joined(separator: ", "))): use more of the name or camera:INDEX")
        }
        return partial[0].path
    }
}
