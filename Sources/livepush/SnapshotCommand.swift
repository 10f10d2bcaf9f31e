import ArgumentParser
import Capture
import LibAV
import MediaCore

/// `livepush snapshot`: one frame from a source to a JPEG or PNG file.
///
/// It captures through the same ``CameraCapturer`` as `run`, `stream` and `serve`, but a missing,
/// unplugged or busy camera is an error here, not the no-signal card: the user asked for a picture
/// of the camera, and a picture of the card would be a lie. The error names the device and what to
/// do (`camera /dev/video1 not found: run `livepush devices` to list cameras`), and no file is written.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "snapshot", abstract: "Write one frame of a source as JPEG or PNG.")

    @OptionGroup var sourceOptions: SourceOptions

    @Option(name: .shortAndLong, help: "Output file; .jpg/.jpeg or .png picks the format.")
    var output: String

    @Option(help: "Seconds to wait for the first frame.")
    var timeout: Double = 10

    func run() async throws {
        _ = try ImageFileWriter.ImageFormat(forPath: output)
        let frame = try await Snapshot.take(from: sourceOptions.makeCapturer(noSignal: .fail), timeoutSeconds: timeout)
        try ImageFileWriter.write(frame.buffer, to: output)
        print("wrote \(output) (\(frame.width)x\(frame.height))")
    }
}

/// Takes one frame from a capturer and stops it.
enum Snapshot {
    /// Throws the capture's error when it ended without a frame (a camera lost after it opened),
    /// else a timeout naming the source.
    static func take(from capturer: any VideoCapturer, timeoutSeconds: Double) async throws -> VideoFrame {
        let sink = FirstFrameSink()
        let events = capturer.events
        let failure = Task { () -> CaptureError? in
            for await event in events { if case let .error(error) = event { return error } }
            return nil
        }
        defer { failure.cancel() }
        _ = try await capturer.start(sink: sink)
        let frame = await sink.wait(timeoutSeconds: timeoutSeconds)
        await capturer.stop()
        if let frame { return frame }
        failure.cancel()
        if let error = await failure.value { throw error }
        throw ValidationError("no frame from \(capturer.name) within \(timeoutSeconds) s")
    }
}
