import Foundation
import Harness

/// Three renditions as the tracks of one enhanced-RTMP (v2) multitrack connection against the same
/// three as three RTMP connections (issue 29): the ``StandardJob`` ladder (720p/480p/360p at
/// 2.5M/1.2M/600k, x264 veryfast/zerolatency, keyframe every 2 s) from its 10 s raw 720p30 clip,
/// in real time, to one receiver:
///
///     livepush-bench --only multitrack [--rounds 3]
///
/// - `livepush stream --rendition ×3 --rtmp-tracks …`: one connection, three tracks;
/// - `livepush stream --rendition ×3` with a URL per rendition: three connections;
/// - `ffmpeg -filter_complex split=3,scale` with three flv outputs: three connections (the ffmpeg CLI
///   has no multitrack RTMP).
///
/// The receiver is ``PublishRecordingRTMPServer``, in this process, announcing multitrack in its
/// `connect` result as a multitrack ingest does (livepush sends tracks only to such a server; neither
/// nginx-rtmp nor ffmpeg's listener announces it). It acknowledges what it reads and keeps no media,
/// the same for every run; what it received (video tag bytes per rendition) shows the runs did the
/// same work. Figures are the whole publisher process's, median of alternating runs (``PeersBenchmark``).
struct MultitrackBenchmark {
    var rounds: Int

    enum Publisher: String, CaseIterable {
        case tracks = "livepush, one connection, 3 tracks"
        case connections = "livepush, 3 connections"
        case ffmpeg = "ffmpeg split=3, 3 connections"
    }

    func run() throws -> BenchTable {
        let workspace = try StandardJob.Workspace()
        let ladder = StandardJob.ladder
        var runs = [Publisher: PeersBenchmark.Runs]()
        var received = [Publisher: [String]]()
        var commands: [String] = []
        for round in 0..<rounds {
            for publisher in Publisher.allCases {
                let server = try PublishRecordingRTMPServer(announcesMultitrack: true)
                defer { server.close() }
                let command = Self.command(publisher, clip: workspace.clip, to: server)
                if round == 0 { commands.append("- \(publisher.rawValue): `\(StandardJob.shellText(command))`") }
                let measured = try BenchProcesses.measure([(command.executable, command.arguments)], seconds: StandardJob.seconds, frames: 1)
                // The publisher has exited; the receiver may still be reading what it sent last.
                let deadline = Date().addingTimeInterval(5)
                while server.connections.contains(where: { $0.closedOrder == nil }), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
                let perRendition = try Self.bytesPerRendition(server.connections, publisher: publisher)
                runs[publisher, default: PeersBenchmark.Runs()].cpuSeconds.append(measured.cpuPerFrame)
                runs[publisher, default: PeersBenchmark.Runs()].peakRSSKiB.append(measured.peakRSSKiB)
                runs[publisher, default: PeersBenchmark.Runs()].outputBytes.append(command.outputBytes())
                received[publisher, default: []].append(perRendition.map(String.init).joined(separator: " / "))
            }
        }
        print("Commands (URL ports differ per run):\n" + commands.joined(separator: "\n") + "\n")
        var table = BenchTable(title: "Three renditions (\(ladder.map { "\($0.name) \($0.kilobitsPerSecond)k" }.joined(separator: ", ")), x264 veryfast/zerolatency) "
                                   + "of the \(StandardJob.seconds) s raw 720p30 clip, real time, to one RTMP receiver announcing multitrack; "
                                   + "median of \(rounds) alternating runs, whole process",
                               columns: ["publisher", "received video bytes (all)", "each run's bytes per rendition (\(ladder.map(\.name).joined(separator: " / ")))",
                                         "CPU s (user+sys)", "peak RSS MiB"])
        for publisher in Publisher.allCases {
            guard let run = runs[publisher] else { continue }
            table.rows.append([publisher.rawValue, "\(PeersBenchmark.median(run.outputBytes))", (received[publisher] ?? []).joined(separator: "; "),
                               PeersBenchmark.medianAndRange(run.cpuSeconds) { String(format: "%.2f", $0) },
                               PeersBenchmark.medianAndRange(run.peakRSSKiB.map { Double($0) / 1024 }) { String(format: "%.1f", $0) }])
        }
        return table
    }

    /// How `publisher` runs the job to `server`; its output bytes are every video tag the server received.
    static func command(_ publisher: Publisher, clip: String, to server: PublishRecordingRTMPServer) -> StandardJob.Command {
        let ladder = StandardJob.ladder
        let url = { (key: String) in "rtmp://127.0.0.1:\(server.port)/live/\(key)" }
        let received = { server.connections.flatMap(\.videoTags).reduce(0) { $0 + $1.bytes } }
        switch publisher {
        case .tracks, .connections:
            var arguments = ["stream", "--source", "file:\(clip)", "--size", "1280x720", "--fps", "30",
                             "--encoder", "libx264", "--preset", "veryfast", "--keyint", "2", "--duration", "\(StandardJob.seconds)s"]
            arguments += ladder.flatMap { ["--rendition", "\($0.name)=\($0.width)x\($0.height)@30:\($0.kilobitsPerSecond)k"] }
            arguments += publisher == .tracks ? ["--rtmp-tracks", ladder.map(\.name).joined(separator: ","), url("tracks")]
                : ladder.map { "\($0.name)=\(url($0.name))" }
            return StandardJob.Command(executable: LivepushExecutable.path, arguments: arguments, outputBytes: received)
        case .ffmpeg:
            var graph = ["[0:v]split=\(ladder.count)[v0]" + (1..<ladder.count).map { "[s\($0)]" }.joined()]
            for index in 1..<ladder.count {
                graph.append("[s\(index)]scale=\(ladder[index].width):\(ladder[index].height)[v\(index)]")
            }
            var arguments = ["-hide_banner", "-nostdin", "-v", "error", "-re", "-i", clip, "-filter_complex", graph.joined(separator: ";")]
            for (index, rendition) in ladder.enumerated() {
                arguments += ["-map", "[v\(index)]"] + StandardJob.ffmpegX264(rendition) + ["-f", "flv", url(rendition.name)]
            }
            return StandardJob.Command(executable: "/usr/bin/ffmpeg", arguments: arguments, outputBytes: received)
        }
    }

    /// The video tag bytes the receiver got for each rendition of the ladder, top first: by track id
    /// on the multitrack connection, by published name on the others. Throws when the run did not
    /// arrive as it was meant to (one connection of three tracks, or three connections of one).
    static func bytesPerRendition(_ connections: [PublishRecordingRTMPServer.Connection], publisher: Publisher) throws -> [Int] {
        let ladder = StandardJob.ladder
        let published = connections.filter { $0.publishedName != nil }
        if publisher == .tracks {
            let tags = published.flatMap(\.videoTags)
            guard published.count == 1, Set(tags.map(\.trackID)) == Set((0..<ladder.count).map { UInt8?.some(UInt8($0)) }) else {
                throw ValidationErrorText("multitrack run: \(published.count) publishes, track ids \(Set(tags.map(\.trackID)))")
            }
            return (0..<ladder.count).map { track in tags.filter { $0.trackID == UInt8(track) }.reduce(0) { $0 + $1.bytes } }
        }
        guard published.count == ladder.count, published.allSatisfy({ $0.videoTags.allSatisfy { $0.trackID == nil } }) else {
            throw ValidationErrorText("\(publisher.rawValue): \(published.count) publishes, names \(published.map(\.publishedName))")
        }
        return ladder.map { rendition in
            published.filter { $0.publishedName == rendition.name }.flatMap(\.videoTags).reduce(0) { $0 + $1.bytes }
        }
    }
}
