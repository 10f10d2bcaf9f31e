import ArgumentParser
import Capture
import LibAV
import MediaCore

/// `livepush snapshot`: one frame from a source to a JPEG or PNG file.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "snapshot", abstract: "Write one frame of a source as JPEG or PNG.")

    @OptionGroup var sourceOptions: SourceOptions

    @Option(name: .shortAndLong, help: "Output file; .jpg/.jpeg or .png picks the format.")
    var output: String

    @Option(help: "Seconds to wait for the first frame.")
    var timeout: Double = 10

    func run() async throws {
        _ = try ImageFileWriter.ImageFormat(forPath: output)
        let frame = try await Snapshot.take(from: sourceOptions.makeCapturer(), timeoutSeconds: timeout)
        try ImageFileWriter.write(frame.buffer, to: output)
        print("wrote \(output) (\(frame.width)x\(frame.height))")
    }
}

/// Takes one frame from a capturer and stops it.
enum Snapshot {
    static func take(from capturer: any VideoCapturer, timeoutSeconds: Double) async throws -> VideoFrame {
        let sink = FirstFrameSink()
        _ = try await capturer.start(sink: sink)
        let frame = await sink.wait(timeoutSeconds: timeoutSeconds)
        await capturer.stop()
        guard let frame else { throw ValidationError("no frame from \(capturer.name) within \(timeoutSeconds) s") }
        return frame
    }
}
