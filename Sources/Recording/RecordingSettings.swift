import Foundation

/// Where and how to record.
public struct RecordingSettings: Sendable, Equatable {
    /// The file to write, e.g. `out.mp4`. With segmenting, files are numbered: `out-000.mp4`, `out-001.mp4`, ….
    /// Without, a recording that must continue in a new file (the encoder's parameter sets changed)
    /// goes on in `out-001.mp4`, `out-002.mp4`, … beside `out.mp4`.
    public var path: String
    /// Start a new file at the first keyframe after this many seconds; nil records one file.
    public var segmentSeconds: Double?
    /// How many encoded frames may wait for the disk before new ones are refused and counted.
    public var queueCapacity: Int

    public init(path: String, segmentSeconds: Double? = nil, queueCapacity: Int = 600) {
        self.path = path
        self.segmentSeconds = segmentSeconds
        self.queueCapacity = queueCapacity
    }

    /// The path of file `index` of the recording (the first is the plain path when not segmenting).
    public func path(forSegment index: Int) -> String {
        guard segmentSeconds != nil || index > 0 else { return path }
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().path
        let ext = url.pathExtension.isEmpty ? "mp4" : url.pathExtension
        return "\(stem)-\(String(format: "%03d", index)).\(ext)"
    }
}
