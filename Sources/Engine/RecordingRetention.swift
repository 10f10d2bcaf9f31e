import Foundation

/// Deletes finished recording segments older than the configured retention, so a Pi streaming
/// for weeks does not fill its SD card. Segments are `STEM-NNN.EXT` beside the configured path
/// (``Recording/RecordingSettings/path(forSegment:)``); the newest is never touched.
enum RecordingRetention {
    /// Returns the paths it deleted.
    @discardableResult
    static func sweep(path: String, retentionSeconds: Double, now: Date = Date()) -> [String] {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        let stem = url.deletingPathExtension().lastPathComponent + "-"
        let ext = url.pathExtension
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        let suffix = ext.isEmpty ? "" : ".\(ext)"
        // Only STEM-NNN.EXT: a file of the user's beside it (`cam-edited.mp4`) is not the recording's.
        let segments = names.filter { name in
            guard name.hasPrefix(stem), name.hasSuffix(suffix), name.count > stem.count + suffix.count else { return false }
            return name.dropFirst(stem.count).dropLast(suffix.count).allSatisfy { $0.isASCII && $0.isNumber }
        }.sorted()
        var deleted: [String] = []
        for name in segments.dropLast() {
            let file = directory.appendingPathComponent(name).path
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > retentionSeconds else { continue }
            if (try? FileManager.default.removeItem(atPath: file)) != nil { deleted.append(file) }
        }
        return deleted
    }
}
