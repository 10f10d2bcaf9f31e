import Logging
import MediaCore

/// Measures how far an audio source's sample clock has moved from the capture clock, and corrects
/// the chunks so the encoders' timestamps (which count samples from the first chunk's capture
/// time) stay on the clock the video frames are stamped with.
///
/// Per chunk: the source's skew is `frames received / rate − (capture time − timeline start)`;
/// ``AudioClockControl`` adds the frames it had inserted and turns that into a correction, which ``SampleFrameCorrector`` applies by
/// inserting or dropping single frames. Logs once when the skew in the timestamps passes
/// ``warningSkewSeconds`` and once when it is back under half of it. Owned by the audio thread.
public struct AudioClockSync {
    public static let warningSkewSeconds = 0.020

    private var control: AudioClockControl
    private var corrector: SampleFrameCorrector
    private let format: AudioFormat
    private var timelineStartNanos: Int64?
    private var framesReceived: Int64 = 0
    private var corrected: [Int16] = []
    private var warned = false

    public init(format: AudioFormat, tuning: AudioClockControl.Tuning) {
        self.format = format
        control = AudioClockControl(tuning: tuning)
        corrector = SampleFrameCorrector(channels: format.channels)
    }

    /// The skew in the timestamps (ms), the device's drift and the correction applied (ppm).
    public var skewMillis: Double { control.skewSeconds * 1e3 }
    public var driftPPM: Double { control.driftPPM }
    public var correctionPPM: Double { control.correctionPPM }

    /// `chunk` with frames inserted or dropped as the clock needs.
    public mutating func process(_ chunk: AudioChunk, logger: Logger) -> AudioChunk {
        let start = timelineStartNanos ?? chunk.captureTimeNanos
        timelineStartNanos = start
        let elapsed = Double(chunk.captureTimeNanos - start) / 1e9
        control.update(receivedSeconds: Double(framesReceived) / Double(format.sampleRate), elapsedSeconds: elapsed)
        framesReceived += Int64(chunk.frameCount)
        warnOnSkew(logger: logger)
        guard control.correction != 0 else { return chunk }
        corrector.correct(chunk.samples, correction: control.correction, into: &corrected)
        return AudioChunk(format: chunk.format, samples: corrected, captureTimeNanos: chunk.captureTimeNanos)
    }

    /// Capture resumed after a pause: the encoders start the next chunk at its capture time, so the
    /// timeline starts again there.
    public mutating func restartTimeline() {
        timelineStartNanos = nil
        framesReceived = 0
        control.restartTimeline()
    }

    private mutating func warnOnSkew(logger: Logger) {
        let skew = abs(control.skewSeconds)
        if !warned, skew > Self.warningSkewSeconds {
            warned = true
            logger.warning("audio and video clocks drift apart", metadata: metadata)
        } else if warned, skew < Self.warningSkewSeconds / 2 {
            warned = false
            logger.info("audio back on the video clock", metadata: metadata)
        }
    }

    private var metadata: Logger.Metadata {
        ["skew_ms": "\(Int(skewMillis.rounded()))", "drift_ppm": "\(Int(driftPPM.rounded()))", "correcting": "\(control.tuning.correcting)"]
    }
}
