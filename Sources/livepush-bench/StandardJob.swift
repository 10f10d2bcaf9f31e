import Foundation
import Harness

/// The jobs livepush is held to beside its peers (issue 28), all on the same input: a 10 s raw YUYV
/// 720p30 testsrc2 clip in Matroska, encoded in real time by x264 veryfast/zerolatency, High
/// profile, no B-frames, a keyframe every 2 s (no scene-cut keyframes), rate 2.5 Mbit/s with a
/// 1 s VBV buffer unless a rendition says otherwise:
///
/// - `mp4`: one encode written as fragmented MP4;
/// - `rtmp`: one encode published over RTMP to a local nginx-rtmp;
/// - `renditions`: 720p/480p/360p at 2.5M/1.2M/600k, each written as fragmented MP4.
///
/// Each tool runs the job its own idiomatic way: `livepush stream`, `ffmpeg -re`, and
/// `gst-launch-1.0` with a syncing sink. The sink paces only what reaches it: mp4mux holds each
/// 2 s fragment, so GStreamer demuxes and encodes up to a fragment ahead of the clock, in bursts
/// (x264 then works with warm caches), which no live source allows. livepush does the same when a
/// file is only recorded (the `mp4` and `renditions` jobs: up to 2 s ahead, `CaptureConfig.fileRunAhead`);
/// to RTMP it paces each frame. `gstreamer-paced` is the same pipeline with `identity sync=true`
/// before the encoder, so frames reach x264enc at the clip's pace, as a camera's would and as
/// ffmpeg's (`-re`) do.
enum StandardJob: String, CaseIterable {
    case mp4 = "one-encode-mp4"
    case rtmp = "one-encode-rtmp"
    case renditions = "three-renditions-mp4"

    enum Tool: String, CaseIterable {
        case livepush, ffmpeg, gstreamer
        case gstreamerPaced = "gstreamer-paced"
    }

    struct Rendition {
        var name: String
        var width: Int
        var height: Int
        var kilobitsPerSecond: Int
    }

    static let seconds = 10
    static let full = Rendition(name: "720p", width: 1280, height: 720, kilobitsPerSecond: 2500)
    static let ladder = [full, Rendition(name: "480p", width: 854, height: 480, kilobitsPerSecond: 1200),
                             Rendition(name: "360p", width: 640, height: 360, kilobitsPerSecond: 600)]

    /// What a job runs, in one place: the clip, a directory for the outputs, and (for `rtmp`) nginx.
    final class Workspace {
        let directory: TemporaryDirectory
        let clip: String
        private var nginx: NginxRTMPServer?

        /// Makes the clip with the ffmpeg CLI (lossless: raw YUYV frames in Matroska, ~550 MB).
        init() throws {
            directory = try TemporaryDirectory()
            clip = directory.file("testsrc2-720p30-yuyv.mkv")
            _ = try BenchCPU.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=\(StandardJob.seconds)",
                                     "-c:v", "rawvideo", "-pix_fmt", "yuyv422", clip], timeoutSeconds: 120)
        }

        /// The nginx-rtmp the `rtmp` job publishes to, started on first use.
        func rtmpServer() throws -> NginxRTMPServer {
            if let nginx { return nginx }
            let server = try NginxRTMPServer(recording: .video)
            nginx = server
            return server
        }

        deinit { nginx?.kill() }
    }

    /// One run of this job by `tool`, writing under a name of its own (`run`).
    struct Command {
        var executable: String
        var arguments: [String]
        /// The bytes the run produced (files written, or what nginx recorded), read after it ended.
        var outputBytes: () -> Int
    }

    func command(_ tool: Tool, run: String, in workspace: Workspace) throws -> Command {
        let renditions: [Rendition] = self == .renditions ? Self.ladder : [Self.full]
        let files = renditions.map { workspace.directory.file("\(run)-\($0.name).mp4") }
        var sizeOfFiles: () -> Int = { files.reduce(0) { $0 + Self.size(of: $1) } }
        var url = ""
        if self == .rtmp {
            let nginx = try workspace.rtmpServer()
            url = nginx.url(key: run)
            sizeOfFiles = {
                nginx.waitForRecordingsToSettle()
                return nginx.recordings(key: run).reduce(0) { $0 + Self.size(of: $1) }
            }
        }
        switch tool {
        case .livepush:
            var arguments = ["stream", "--source", "file:\(workspace.clip)", "--size", "1280x720", "--fps", "30",
                             "--encoder", "libx264", "--preset", "veryfast", "--bitrate", "2500k", "--keyint", "2",
                             "--duration", "\(Self.seconds)s"]
            switch self {
            case .mp4: arguments += ["--record", files[0]]
            case .rtmp: arguments += [url]
            case .renditions:
                for (rendition, file) in zip(renditions, files) {
                    arguments += ["--rendition", "\(rendition.name)=\(rendition.width)x\(rendition.height)@30:\(rendition.kilobitsPerSecond)k",
                                  "--record", "\(rendition.name)=\(file)"]
                }
            }
            return Command(executable: LivepushExecutable.path, arguments: arguments, outputBytes: sizeOfFiles)
        case .ffmpeg:
            var arguments = ["-hide_banner", "-nostdin", "-v", "error", "-re", "-i", workspace.clip]
            let fragmented = ["-f", "mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-y"]
            switch self {
            case .mp4: arguments += Self.ffmpegX264(Self.full) + fragmented + [files[0]]
            case .rtmp: arguments += Self.ffmpegX264(Self.full) + ["-f", "flv", url]
            case .renditions:
                var graph = ["[0:v]split=\(renditions.count)[v0]" + (1..<renditions.count).map { "[s\($0)]" }.joined()]
                for index in 1..<renditions.count {
                    graph.append("[s\(index)]scale=\(renditions[index].width):\(renditions[index].height)[v\(index)]")
                }
                arguments += ["-filter_complex", graph.joined(separator: ";")]
                for (index, file) in files.enumerated() {
                    arguments += ["-map", "[v\(index)]"] + Self.ffmpegX264(renditions[index]) + fragmented + [file]
                }
            }
            return Command(executable: "/usr/bin/ffmpeg", arguments: arguments, outputBytes: sizeOfFiles)
        case .gstreamer, .gstreamerPaced:
            var pipeline: [String] = ["filesrc", "location=\(workspace.clip)", "!", "matroskademux", "!", "videoconvert", "!", "video/x-raw,format=I420"]
            if tool == .gstreamerPaced { pipeline += ["!", "identity", "sync=true"] }
            if self == .renditions { pipeline += ["!", "tee", "name=split"] }
            for (rendition, file) in zip(renditions, files) {
                if self == .renditions { pipeline += ["split.", "!", "queue"] }
                if rendition.width != Self.full.width {
                    pipeline += ["!", "videoscale", "!", "video/x-raw,width=\(rendition.width),height=\(rendition.height)"]
                }
                pipeline += Self.gstreamerX264(rendition)
                let sink: [String] = self == .rtmp ? ["!", "flvmux", "streamable=true", "!", "rtmp2sink", "sync=true", "location=\(url)"]
                    : ["!", "mp4mux", "fragment-duration=2000", "!", "filesink", "sync=true", "location=\(file)"]
                pipeline += sink
            }
            return Command(executable: "/usr/bin/gst-launch-1.0", arguments: ["-q"] + pipeline, outputBytes: sizeOfFiles)
        }
    }

    /// How the whole job reads as a shell command (`run` names the outputs), for BENCHMARKS.md.
    static func shellText(_ command: Command) -> String {
        ([URL(fileURLWithPath: command.executable).lastPathComponent] + command.arguments.map { argument in
            argument.contains(where: { " ;[]()".contains($0) }) ? "'\(argument)'" : argument
        }).joined(separator: " ")
    }

    /// libx264 through the ffmpeg CLI as livepush opens it (``EncoderContext``).
    static func ffmpegX264(_ rendition: Rendition) -> [String] {
        let rate = "\(rendition.kilobitsPerSecond)k"
        return ["-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "high", "-pix_fmt", "yuv420p",
                "-b:v", rate, "-maxrate", rate, "-bufsize", rate, "-g", "60", "-bf", "0", "-forced-idr", "1",
                "-x264-params", "scenecut=0:open-gop=0:repeat-headers=1"]
    }

    /// GStreamer's x264enc with the same parameters: `bitrate` in kbit/s (its CBR pass sets the VBV
    /// maximum rate to it), `vbv-buf-capacity` in milliseconds, then h264parse for the muxer.
    static func gstreamerX264(_ rendition: Rendition) -> [String] {
        ["!", "x264enc", "speed-preset=veryfast", "tune=zerolatency", "bitrate=\(rendition.kilobitsPerSecond)", "vbv-buf-capacity=1000",
         "key-int-max=60", "bframes=0", "option-string=scenecut=0:open-gop=0:repeat-headers=1", "!", "video/x-h264,profile=high", "!", "h264parse"]
    }

    private static func size(of path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
