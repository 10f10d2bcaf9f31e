import ArgumentParser
import Foundation

/// The `livepush` command line: capture, encode and push live video.
@main
struct Livepush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "livepush",
        abstract: "Capture a camera, encode it and push it live (RTMP, RTP/SRTP, WebRTC).",
        subcommands: [RunCommand.self, StreamCommand.self, EncodersCommand.self, SourcesCommand.self, SnapshotCommand.self, DevicesCommand.self, ControlsCommand.self, ServeCommand.self, CheckConfigCommand.self, ProbeCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// ArgumentParser's own `main()`, except that a command that returns ends the process with
    /// `_exit` once the C library's streams are flushed, skipping the exit handlers and the
    /// destructors of the ~140 libraries FFmpeg and the rest load. By then every command has
    /// closed what it wrote (its outputs finished: recordings finalized, connections closed).
    /// Those destructors free nothing the kernel would not, and running
    /// them faults in their code, dropped from memory by the releases (``ProcessFootprint``): about
    /// 13 MB of file pages in the last milliseconds, which became the run's peak RSS whenever it
    /// came before the encoder thread had freed x264's buffers (BENCHMARKS.md, "The end of a run,
    /// and a binary just written"). An error still exits through ArgumentParser, as before.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
        fflush(nil)
        _exit(0)
    }
}
