import Capture
import Codec
import Foundation
import MediaCore
import Output
import Pipeline
import Recording
import Synchronization
import Testing
import TestSupport

/// Scaling once per distinct size: a rendition at capture size encodes the captured buffers
/// themselves, and two renditions of one smaller size share one scaled picture per captured frame.
@Suite(.timeLimit(.minutes(2))) struct RenditionScalingTests {
    /// 640×360 at capture size plus two 320×180 renditions, the small ones recorded: the capture-size
    /// encoder took every frame as the captured buffer (identity, no scale, no turn); between them
    /// the small ones scaled each frame once (the other took that picture), and their recordings
    /// hold every encoded frame's code in capture order (the shared picture was the right frame's).
    @Test func sameSizeRenditionsScaleEachFrameOnceAndCaptureSizeNotAtAll() async throws {
        let dir = try TemporaryDirectory()
        let small3M = RecordingOutput(settings: RecordingSettings(path: dir.file("a.mp4")))
        let small1M = RecordingOutput(settings: RecordingSettings(path: dir.file("b.mp4")))
        let top = RecordingOutput(settings: RecordingSettings(path: dir.file("top.mp4")))
        let capturer = TestPatternCapturer(source: TestPatternSource(), config: CaptureConfig(size: RenditionPipelineTests.captureSize, framesPerSecond: 30),
                                           poolCapacity: StreamPipeline.capturePoolCapacity(renditions: 3))
        let pipeline = try StreamPipeline(capturer: capturer,
                                          renditions: [RenditionPipelineTests.rendition("top", 640, 360, bitrate: 800_000),
                                                       RenditionPipelineTests.rendition("a", 320, 180, bitrate: 300_000),
                                                       RenditionPipelineTests.rendition("b", 320, 180, bitrate: 100_000)],
                                          outputs: [(top, 0), (small3M, 1), (small1M, 2)])
        _ = try await pipeline.start()
        for _ in 0..<100 where pipeline.status.renditions.contains(where: { $0.encoder.encoded < 60 }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        await pipeline.stop()
        let renditions = pipeline.status.renditions.map(\.encoder)
        let (full, a, b) = (renditions[0], renditions[1], renditions[2])
        #expect(full.encoded >= 60 && a.encoded >= 60 && b.encoded >= 60, "\(renditions)")

        #expect(full.preparation.scaled == 0 && full.preparation.scaledBySibling == 0 && full.preparation.rotated == 0, "\(full.preparation)")
        #expect(full.preparation.asCaptured == full.encoded, "every capture-size frame went to the encoder as the captured buffer: \(full)")

        let scaled = a.preparation.scaled + b.preparation.scaled
        let shared = a.preparation.scaledBySibling + b.preparation.scaledBySibling
        #expect(a.preparation.asCaptured == 0 && b.preparation.asCaptured == 0)
        #expect(scaled + shared == a.encoded + b.encoded, "each small frame was scaled or taken scaled: \(a.preparation), \(b.preparation)")
        #expect(scaled <= a.submitted, "never more scales than captured frames (scaling per rendition would be about twice)")
        #expect(shared > 0)
        if a.dropped == 0 && b.dropped == 0 {
            #expect(scaled == a.encoded && a.encoded == b.encoded, "both encoded every frame, scaled once each: \(a), \(b)")
        }

        for (name, encoded) in [("a.mp4", a.encoded), ("b.mp4", b.encoded)] {
            let numbers = try RecordedFrameCodes.read(dir.file(name), width: 320, height: 180).compactMap { $0?.frameNumber }
            #expect(numbers.count == encoded, "\(name): \(numbers.count) readable codes, \(encoded) encoded")
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "\(name): each shared picture was its own frame, in order")
        }
    }
}

/// Turned frames keep their own path: with the capture upside down, a rendition whose output
/// signals rotation takes the shared scaled picture and passes the turn on as metadata, while its
/// same-size sibling, whose output cannot, turns the captured picture itself, then scales it
/// (sharing a picture scaled before the turn would hand it the wrong orientation).
@Suite(.timeLimit(.minutes(2))) struct RenditionScalingRotationTests {
    @Test func aRenditionThatTurnsPixelsScalesItsOwnTurnedPicture() async throws {
        let signalling = RotationSeenOutput(name: "metadata", carriesRotationMetadata: true)
        let turning = RotationSeenOutput(name: "pixels", carriesRotationMetadata: false)
        let capturer = TestPatternCapturer(source: TestPatternSource(),
                                           config: CaptureConfig(size: RenditionPipelineTests.captureSize, framesPerSecond: 30, rotation: .clockwise180),
                                           poolCapacity: StreamPipeline.capturePoolCapacity(renditions: 2))
        let pipeline = try StreamPipeline(capturer: capturer,
                                          renditions: [RenditionPipelineTests.rendition("a", 320, 180, bitrate: 300_000),
                                                       RenditionPipelineTests.rendition("b", 320, 180, bitrate: 100_000)],
                                          outputs: [(signalling, 0), (turning, 1)])
        _ = try await pipeline.start()
        for _ in 0..<100 where pipeline.status.renditions.contains(where: { $0.encoder.encoded < 30 }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let threads = ThreadNames.of("self")
        await pipeline.stop()
        #expect(threads.contains("enc:a") && threads.contains("enc:b"), "each rendition's encoder thread is named for it (the bench reads them): \(threads)")
        let (a, b) = (pipeline.status.renditions[0].encoder, pipeline.status.renditions[1].encoder)
        #expect(a.encoded >= 30 && b.encoded >= 30, "\(a), \(b)")
        #expect(a.preparation.rotated == 0 && a.preparation.scaled == a.encoded, "metadata rendition: the shared scale, unturned: \(a.preparation)")
        #expect(b.preparation.rotated == b.encoded && b.preparation.scaled == b.encoded && b.preparation.scaledBySibling == 0,
                "pixel-turning rendition: turned, then scaled its own: \(b.preparation)")
        #expect(signalling.rotations == [.clockwise180], "the turn travels as metadata: \(signalling.rotations)")
        #expect(turning.rotations == [VideoRotation.none], "the pixels were turned: \(turning.rotations)")
    }
}

/// Records which rotation its encoded frames carried.
private final class RotationSeenOutput: StreamOutput, @unchecked Sendable {
    let name: String
    let carriesRotationMetadata: Bool
    private let seen = Mutex<Set<VideoRotation>>([])

    init(name: String, carriesRotationMetadata: Bool) {
        self.name = name
        self.carriesRotationMetadata = carriesRotationMetadata
    }

    func start(_ context: OutputStartContext) async throws {}
    func stop() async {}
    func onEncodedFrame(_ frame: EncodedVideoFrame) { seen.withLock { _ = $0.insert(frame.rotation) } }
    func onEncoderError(_ error: CodecError) {}
    var status: OutputStatus { OutputStatus(state: .running) }
    var rotations: Set<VideoRotation> { seen.withLock { $0 } }
}
