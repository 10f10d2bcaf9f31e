import Engine
import Foundation
import Output

/// A camera's `GET /api/status` as a test polls it from a running `livepush serve`: each WHEP
/// viewer's link (estimate, rendition, switches), the other outputs' renditions and each
/// rendition's encoder, as a user watching the API sees them.
struct StatusSamples {
    /// The camera in every answer that decoded, with when it came.
    private(set) var cameras: [(at: Date, camera: CameraReport)] = []
    /// Polls without a decodable answer (the server busy past curl's limit, or gone).
    private(set) var unreadable = 0
    /// One entry per second since `start`: each viewer (by session id) as `estimate k/r rendition/l loss %`.
    private(set) var timeline: [String] = []

    /// Adds one poll's body (nil when the request failed); `start` (nil before it) begins the timeline.
    mutating func add(_ body: String?, at time: Date, timelineStart start: Date?) {
        guard let body, let report = try? JSONDecoder().decode(StatusReport.self, from: Data(body.utf8)),
              let camera = report.cameras.first else {
            unreadable += 1
            return
        }
        cameras.append((time, camera))
        if let start, timeline.count < Int(time.timeIntervalSince(start)) {
            timeline.append(String(format: "%.0f:", time.timeIntervalSince(start)) + Self.viewerLinks(camera).sorted { $0.key < $1.key }.map {
                "\(($0.value.estimateBitsPerSecond ?? 0) / 1000)k/r\($0.value.rendition)/l\(Int(($0.value.feedbackLossFraction ?? 0) * 100))"
            }.joined(separator: ","))
        }
    }

    /// The WHEP output's viewers in one answer, by session id.
    static func viewerLinks(_ camera: CameraReport) -> [String: WebRTCViewerLink] {
        camera.outputs.first { $0.kind == "whep" }?.viewerLinks ?? [:]
    }

    /// The viewers' links in the last answer that had `count` of them (before the pages left).
    func lastViewerLinks(count: Int) -> [String: WebRTCViewerLink] {
        cameras.last { Self.viewerLinks($0.camera).count == count }.map { Self.viewerLinks($0.camera) } ?? [:]
    }

    /// The rendition the output of `kind` took in each answer (nil where it was missing or served every rendition).
    func renditions(ofOutput kind: String) -> [String?] {
        cameras.map { sample in sample.camera.outputs.first { $0.kind == kind }?.rendition }
    }

    /// Each rendition's encoder bitrate in every answer, by rendition name.
    var encoderBitrates: [String: Set<Int>] {
        cameras.reduce(into: [:]) { all, sample in
            for rendition in sample.camera.renditions { all[rendition.name, default: []].insert(rendition.encoderBitrateBitsPerSecond) }
        }
    }
}
