import ArgumentParser
import Capture
import Codec
import Foundation
import LibAV
import Logging
import MediaCore
import Pipeline
import ProcessFootprint
import Recording
import RTMPClient
import WebRTCTransport

/// `livepush stream`: the main job — one source, one encode, every output at once.
struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Encode a source once and push it to every output (recording, RTMP, RTP, WebRTC).")

    @OptionGroup var sourceOptions: SourceOptions
    @OptionGroup var encoderOptions: EncoderOptions
    @OptionGroup var audioOptions: AudioOptions
    @OptionGroup var rtmpOptions: RTMPOptions
    @OptionGroup var rtpOptions: RTPOptions
    @OptionGroup var webRTCOptions: WebRTCOptions
    @OptionGroup var whipOptions: WHIPOptions

    @Option(help: "Stop after this long (e.g. 10s, 5m); default: until Ctrl-C or SIGTERM.")
    var duration: String?

    @Option(help: "Record to this fragmented MP4 file (playable even after a crash).")
    var record: String?

    @Option(help: "With --record: start a new numbered file every so often (e.g. 10m), at a keyframe.")
    var segment: String?

    func run() async throws {
        FFmpegLogging.quiet()
        let logger = Logger(label: "livepush.stream")
        ProcessFootprint.atStart(logger: logger)
        let capture = try sourceOptions.captureConfig()
        let settings = try encoderOptions.settings(size: capture.size, fps: capture.framesPerSecond)
        let rtmpOutputs = try rtmpOptions.outputs(encoder: settings, rotation: capture.rotation)
        let whep = try webRTCOptions.makeService()
        let whipOutputs: [any StreamOutput] = try whipOptions.outputs(reconnect: rtmpOptions.reconnectPolicy())
        let outputs = try makeOutputs() + rtmpOutputs + whipOutputs + (whep.map { [$0] } ?? [])
        guard !outputs.isEmpty else { throw ValidationError("nothing to stream to: give an rtmp:// URL, --whip URL or --record FILE") }
        let seconds = try duration.map { try DurationParser.seconds(parsing: $0) }
        let pipeline = try StreamPipeline(capturer: sourceOptions.makeCapturer(), encoderSettings: settings,
                                          audioSource: audioOptions.makeSource(), outputs: outputs)
        try webRTCOptions.adaptBitrate(of: whep, encoder: settings)
        let format = try await pipeline.start()
        print("livepush: streaming \(pipeline.capturer.name) (\(format)) to \(outputs.map(\.name).joined(separator: ", "))")
        let web = try await webRTCOptions.serve(whep)
        let trim = ProcessFootprint.keepReleasing(settle: .zero, logger: logger)
        await StreamRunner(pipeline: pipeline).runUntilStopped(afterSeconds: seconds)
        trim.cancel()
        web?.cancel()
        print(StreamReport(status: pipeline.status).summary)
        rtmpOptions.printSendReport(of: rtmpOutputs)
        webRTCOptions.printReport(of: whep)
    }

    private func makeOutputs() throws -> [any StreamOutput] {
        var outputs: [any StreamOutput] = []
        if let record {
            let segmentSeconds = try segment.map { try DurationParser.seconds(parsing: $0) }
            outputs.append(RecordingOutput(settings: RecordingSettings(path: record, segmentSeconds: segmentSeconds)))
        }
        if let rtp = try rtpOptions.makeOutput() { outputs.append(rtp) }
        return outputs
    }
}
