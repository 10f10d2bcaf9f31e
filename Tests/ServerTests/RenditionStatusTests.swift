import Config
import Foundation
import Capture
import Engine
import MediaCore
import Server
import Testing
import TestSupport

/// A camera with two renditions: `/api/status` and `/metrics` show camera → renditions → outputs;
/// a reload adds an output to the lower rendition in place, and a change to the renditions restarts the camera.
@Suite(.serialized, .timeLimit(.minutes(2))) struct RenditionStatusTests {
    static func renditions(lowBitrate: Int = 100_000) -> [RenditionConfig] {
        let encoder = EncoderConfig(name: "libx264", bitrateBitsPerSecond: 300_000, keyframeIntervalSeconds: 1, preset: "ultrafast")
        var low = encoder
        low.bitrateBitsPerSecond = lowBitrate
        return [RenditionConfig(name: "top", size: VideoSize(width: 320, height: 240), framesPerSecond: 15, encoder: encoder),
                RenditionConfig(name: "low", size: VideoSize(width: 160, height: 120), framesPerSecond: 5, encoder: low)]
    }

    @Test func statusAndMetricsShowTheRenditionsAndReloadsKeepThem() async throws {
        try await ServerFixture.run(configure: { config in
            config.cameras[0].renditions = Self.renditions()
        }) { client, broadcaster, _, directory in
            #expect(await eventually { (await broadcaster.status().cameras.first?.renditions.last?.framesEncoded ?? 0) >= 5 })
            let camera = try #require(await broadcaster.status().cameras.first)
            #expect(camera.renditions.map(\.name) == ["top", "low"])
            #expect(camera.renditions.map(\.width) == [320, 160] && camera.renditions.map(\.height) == [240, 120])
            #expect(camera.renditions.map(\.fps) == [15, 5] && camera.renditions.map(\.encoder) == ["libx264", "libx264"])
            #expect(camera.renditions.map(\.targetBitrateBitsPerSecond) == [300_000, 100_000])
            #expect(camera.renditions.map(\.outputs) == [["record"], []])
            #expect(camera.renditions[1].framesThinned > 0 && camera.renditions[0].framesThinned == 0)
            #expect(camera.outputs.map(\.rendition) == ["top"])
            // The top rendition is at capture size (320×240): its encoder takes the captured buffers, uncopied.
            #expect(camera.renditions[0].framesScaled == 0 && camera.renditions[0].framesAsCaptured > 0, "\(camera.renditions[0])")
            #expect(camera.renditions[1].framesScaled > 0 && camera.renditions[1].framesAsCaptured == 0, "\(camera.renditions[1])")
            #expect(camera.renditions.map(\.framesScaledBySibling) == [0, 0], "no two renditions share a size")
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                for series in [#"livepush_rendition_info{camera="cam0",rendition="low",width="160",height="120",encoder="libx264"} 1"#,
                               #"livepush_rendition_dropped_frames_total{camera="cam0",rendition="top"}"#,
                               #"livepush_rendition_thinned_frames_total{camera="cam0",rendition="low"}"#,
                               #"livepush_rendition_scaled_frames_total{camera="cam0",rendition="top"} 0"#,
                               #"livepush_rendition_uncopied_frames_total{camera="cam0",rendition="low"} 0"#,
                               #"livepush_output_rendition_info{camera="cam0",output="record",rendition="top"} 1"#] {
                    #expect(text.contains(series), "missing \(series)")
                }
            }

            let runtime = try await broadcaster.camera("cam0")
            var config = await broadcaster.config
            config.cameras[0].outputs.append(OutputConfig(id: "small", settings: .record(path: "\(directory)/small.mp4", segmentSeconds: nil, retentionSeconds: nil),
                                                          rendition: "low"))
            let added = await broadcaster.reload(config)
            #expect(added.updated == ["cam0"] && added.outputs["cam0"]?.added == ["small"], "\(added)")
            #expect(try await broadcaster.camera("cam0") === runtime, "an added output joins its rendition in place")
            #expect(await eventually {
                (await broadcaster.status().cameras.first?.outputs.first { $0.id == "small" }?.framesSent ?? 0) > 2
            })
            #expect(await broadcaster.status().cameras.first?.renditions.map(\.outputs) == [["record"], ["small"]])

            config.cameras[0].renditions = Self.renditions(lowBitrate: 150_000)
            let changed = await broadcaster.reload(config)
            #expect(changed.restarted == ["cam0"], "a change to the renditions restarts the camera: \(changed)")
            #expect(await broadcaster.status().cameras.first?.renditions.map(\.targetBitrateBitsPerSecond) == [300_000, 150_000])
        }
    }
}
