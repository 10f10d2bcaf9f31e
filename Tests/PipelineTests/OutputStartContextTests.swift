import Capture
import Codec
import Foundation
import MediaCore
import Output
import Pipeline
import Synchronization
import Testing
import TestSupport

/// What the pipeline hands each output at start: the audio track in the output's codec, the
/// renditions only to an output that serves all, the rotation fallback only while one of its encodes
/// passes rotation through, and a bitrate cap on the encode it takes (the lowest, for one that serves all).
@Suite(.timeLimit(.minutes(2))) struct OutputStartContextTests {
    /// Two renditions: the top one feeds an RTMP-like output (AAC, needs turned pixels), so it turns
    /// them; the low one feeds only outputs that carry rotation metadata, so it passes rotation through.
    @Test func eachOutputStartsWithThePiecesItTakes() async throws {
        let viewers = ContextRecordingOutput(name: "viewers", audioCodec: .opus, carriesRotationMetadata: true, servesAllRenditions: true)
        let rtmp = ContextRecordingOutput(name: "rtmp", audioCodec: .aac)
        let signallingTop = ContextRecordingOutput(name: "signalling-top", carriesRotationMetadata: true)
        let signallingLow = ContextRecordingOutput(name: "signalling-low", audioCodec: .opus, carriesRotationMetadata: true)
        let pipeline = try StreamPipeline(capturer: RenditionPipelineTests.capturer(),
                                          renditions: [RenditionPipelineTests.rendition("top", 640, 360, bitrate: 800_000),
                                                       RenditionPipelineTests.rendition("low", 320, 180, bitrate: 200_000)],
                                          audioSource: try SyntheticAudioSource(signal: .silence),
                                          outputs: [(viewers, 0), (rtmp, 0), (signallingTop, 0), (signallingLow, 1)])
        _ = try await pipeline.start()

        let all = try #require(viewers.context)
        #expect(all.audioTrack?.codec == .opus)
        #expect(all.renditions?.list == pipeline.renditions)
        #expect(all.rotatePixels != nil, "the low rendition passes rotation through")

        let aac = try #require(rtmp.context)
        #expect(aac.audioTrack?.codec == .aac && aac.audioTrack?.audioSpecificConfig != nil, "the AAC track with its config")
        #expect(aac.renditions == nil && aac.rotatePixels == nil)

        let top = try #require(signallingTop.context)
        #expect(top.audioTrack == nil, "video only")
        #expect(top.rotatePixels == nil, "the top rendition turns the pixels already (for rtmp)")
        #expect(top.renditions == nil)

        let low = try #require(signallingLow.context)
        #expect(low.audioTrack?.codec == .opus && low.rotatePixels != nil && low.renditions == nil)

        // Each cap lands on the encode the output takes; one that serves all caps the lowest.
        aac.limitBitrate(500_000)
        all.limitBitrate(150_000)
        #expect(pipeline.status.renditions.map(\.bitrate.bitsPerSecond) == [500_000, 150_000])
        await pipeline.stop()
    }

    /// An output attached to the running stream starts with the same kind of context: the running
    /// audio track in its codec, the rotation fallback of its passing-through encode.
    @Test func anAttachedOutputStartsWithTheRunningTrack() async throws {
        let first = ContextRecordingOutput(name: "first", audioCodec: .opus, carriesRotationMetadata: true)
        let pipeline = try StreamPipeline(capturer: RenditionPipelineTests.capturer(),
                                          renditions: [RenditionPipelineTests.rendition("top", 640, 360, bitrate: 800_000)],
                                          audioSource: try SyntheticAudioSource(signal: .silence), outputs: [(first, 0)])
        _ = try await pipeline.start()
        let attached = ContextRecordingOutput(name: "attached", audioCodec: .opus, carriesRotationMetadata: true)
        #expect(pipeline.canAttach(attached))
        try await pipeline.attach(attached)
        let context = try #require(attached.context)
        #expect(context.audioTrack != nil && context.audioTrack == first.context?.audioTrack)
        #expect(context.rotatePixels != nil && context.renditions == nil)
        await pipeline.stop()
    }
}

/// Keeps the context it was started with; takes frames and drops them.
private final class ContextRecordingOutput: StreamOutput {
    let name: String
    let audioCodec: AudioCodec?
    let carriesRotationMetadata: Bool
    let servesAllRenditions: Bool
    private let started = Mutex<OutputStartContext?>(nil)

    init(name: String, audioCodec: AudioCodec? = nil, carriesRotationMetadata: Bool = false, servesAllRenditions: Bool = false) {
        self.name = name
        self.audioCodec = audioCodec
        self.carriesRotationMetadata = carriesRotationMetadata
        self.servesAllRenditions = servesAllRenditions
    }

    var context: OutputStartContext? { started.withLock { $0 } }

    func start(_ context: OutputStartContext) async throws { started.withLock { $0 = context } }
    func stop() async {}
    func onEncodedFrame(_ frame: EncodedVideoFrame) {}
    func onEncoderError(_ error: CodecError) {}
    var status: OutputStatus { OutputStatus(state: .running) }
}
