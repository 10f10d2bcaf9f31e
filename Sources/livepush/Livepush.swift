import ArgumentParser

/// The `livepush` command line: capture, encode and push live video.
@main
struct Livepush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "livepush",
        abstract: "Capture a camera, encode it and push it live (RTMP, RTP/SRTP, WebRTC).",
        subcommands: [RunCommand.self, StreamCommand.self, EncodersCommand.self, SourcesCommand.self, SnapshotCommand.self, DevicesCommand.self, ControlsCommand.self, ServeCommand.self, CheckConfigCommand.self, ProbeCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
